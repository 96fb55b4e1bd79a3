// The relayer's OpenAPI document as tools read it (docs/api.md): JSON Schema
// 2020-12 components, the head every document carries, an example for every body
// that its own schema accepts, and uint256 strings bounded. (redocly lints the file
// in .ci/run; test/openapi/prism.test.ts checks live answers against it.)
import { describe, expect, test } from 'bun:test'
import * as v from 'valibot'
import { schemaComponents } from '../../src/openapi/index.ts'
import { openApiDocument } from '../../src/relayer/http/openapi.ts'
import {
  ActivitySnapshotSchema,
  BrokerStatusSchema,
  EdgeRejectionSchema,
  ReadinessSchema,
  RelayerStatusSchema,
  RelayerInfoSchema,
  RelayFailureSchema,
  RelayRequestSchema,
  RelaySuccessSchema,
  RouteFailureSchema,
  Uint256StringSchema,
} from '../../src/wire/index.ts'
import { documentBodies, type OpenApiDocument } from './support/documentBodies.ts'


const document = openApiDocument('1.2.3') as OpenApiDocument
const wire: Record<string, v.GenericSchema> = {
  RelayRequest: RelayRequestSchema,
  RelaySuccess: RelaySuccessSchema,
  RelayFailure: RelayFailureSchema,
  EdgeRejection: EdgeRejectionSchema,
  RelayerInfo: RelayerInfoSchema,
  Readiness: ReadinessSchema,
  BrokerStatus: BrokerStatusSchema,
  RelayerStatus: RelayerStatusSchema,
  RouteFailure: RouteFailureSchema,
}

const bodies = () => documentBodies(document)

describe('the relayer document', () => {
  test('head: OpenAPI 3.1, license, a server, no authentication', () => {
    expect(document.info).toMatchObject({ title: 'order-relay relayer', version: '1.2.3', license: { name: 'MIT', identifier: 'MIT' } })
    expect(document.servers).toEqual([{ url: '/', description: 'The relayer that served this document.' }])
    expect(document.security).toEqual([])
  })

  test('every status each route answers, 404, 405, 429 and 431 on every route, a preflight on every path, the 64 KiB limit stated', () => {
    const statuses = Object.fromEntries(
      Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => [`${method} ${path}`, Object.keys(operation.responses)])),
    )
    const preflight = ['204', '404', '431']
    expect(statuses).toEqual({
      'post /broker': ['200', '202', '400', '402', '404', '405', '422', '429', '431', '502', '503'],
      'options /broker': preflight,
      'get /broker/{orderHash}': ['200', '400', '404', '405', '429', '431', '502'],
      'options /broker/{orderHash}': preflight,
      'get /info': ['200', '404', '405', '429', '431'],
      'options /info': preflight,
      'get /health': ['200', '404', '405', '429', '431'],
      'options /health': preflight,
      'get /ready': ['200', '404', '405', '429', '431', '503'],
      'options /ready': preflight,
      'get /status': ['200', '404', '405', '429', '431'],
      'options /status': preflight,
      'get /': ['200', '404', '405', '429', '431'],
      'options /': preflight,
      'get /api/openapi.json': ['200', '404', '405', '429', '431'],
      'options /api/openapi.json': preflight,
    })
    expect(JSON.stringify(document.paths['/broker'])).toContain('at most 65536 bytes')
  })

  test('every body has an example, and its own schema accepts every example', () => {
    const checked: string[] = []
    for (const [where, media] of bodies()) {
      const examples = media.examples ? Object.values(media.examples).map((each) => each.value) : [media.example]
      expect({ where, examples: examples.filter((each) => each === undefined).length }).toEqual({ where, examples: 0 })
      const name = media.schema.$ref?.replace('#/components/schemas/', '')
      if (!name) continue
      const schema = wire[name]
      if (!schema) throw new Error(`${where}: no wire schema for ${name}`)
      for (const example of examples) {
        const result = v.safeParse(schema, example)
        expect({ where, issues: result.issues?.map((issue) => issue.message) }).toEqual({ where, issues: undefined })
      }
      checked.push(where)
    }
    // Every body but those with an inline schema (the document's own, /health's text, /broker/{orderHash}'s event stream,
    // the status page's HTML): the other routes' 22 and GET /'s 429, RouteFailure's 404 and 405 on each of the 8 routes,
    // and its 404 on each of the 8 preflights.
    expect(checked.length).toBe(22 + 1 + 8 * 2 + 8)
  })

  test('uint256 strings carry maxLength 78, and the schema says so too', () => {
    expect(document.components.schemas.Order?.properties).toMatchObject({ amount: { maxLength: 78 }, nonce: { maxLength: 78 } })
    const max = (2n ** 256n - 1n).toString()
    expect(max.length).toBe(78)
    expect(v.safeParse(Uint256StringSchema, max).success).toBe(true)
    expect(v.safeParse(Uint256StringSchema, (2n ** 256n).toString()).issues?.map((issue) => issue.message)).toEqual(['must fit in uint256'])
    expect(v.safeParse(Uint256StringSchema, `1${'0'.repeat(78)}`).issues?.map((issue) => issue.message)).toEqual(['must fit in uint256'])
  })
})

describe('schemaComponents', () => {
  test('JSON Schema 2020-12: a tuple is prefixItems, references point into components', () => {
    const { ActivitySnapshot } = schemaComponents({ ActivitySnapshot: ActivitySnapshotSchema })
    const addresses = (ActivitySnapshot?.properties as Record<string, Record<string, unknown>>).addresses
    expect(addresses).toMatchObject({ type: 'array', minItems: 4 })
    expect(Array.isArray(addresses?.prefixItems)).toBe(true)
    expect(Array.isArray(addresses?.items)).toBe(false)
    expect(JSON.stringify(schemaComponents({ RelayRequest: RelayRequestSchema, Order: v.object({}) }))).not.toContain('$defs')
  })
})
