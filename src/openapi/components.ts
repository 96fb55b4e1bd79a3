import { toJsonSchemaDefs } from '@valibot/to-json-schema'
import type { GenericSchema } from 'valibot'

/** A JSON Schema object, as it goes into the document. */
export type JsonSchemaObject = Record<string, unknown>

/**
 * OpenAPI 3.1 `components.schemas` from valibot schemas (the same objects that validate
 * the wire): JSON Schema 2020-12 (tuples as `prefixItems`), each named schema reused by
 * reference. Schemas describe what a client may send (`typeMode: 'input'`); checks
 * JSON Schema cannot say (a `v.check`) are left out rather than failing.
 *
 * @example
 * const schemas = schemaComponents({ Order: OrderSchema, RelayerInfo: RelayerInfoSchema })
 */
export function schemaComponents(schemas: Record<string, GenericSchema>): Record<string, JsonSchemaObject> {
  const defs = toJsonSchemaDefs(schemas, { target: 'draft-2020-12', typeMode: 'input', errorMode: 'ignore' })
  // toJsonSchemaDefs refers to `#/$defs/Name`; in OpenAPI the schemas live under components/schemas.
  return JSON.parse(JSON.stringify(defs).replaceAll('"#/$defs/', '"#/components/schemas/'))
}

/** `{ $ref }` to a named component schema. */
export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` })
