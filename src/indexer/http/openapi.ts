import { toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema'
import packageJson from '../../../package.json' with { type: 'json' }
import {
  ActivityEventSchema,
  ActivityPageSchema,
  ActivityQueryProblemSchema,
  ActivityQuerySchema,
  ActivitySnapshotSchema,
  IndexerReadinessSchema,
} from '../../wire/index.ts'

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const json = (schema: object) => ({ 'application/json': { schema } })
const unavailable = {
  type: 'object',
  required: ['ok', 'code', 'message'],
  properties: { ok: { const: false }, code: { const: 'UNAVAILABLE' }, message: { type: 'string' } },
}

let cached: object | undefined

/**
 * The OpenAPI 3.1 document of the indexer (`GET /api/openapi.json`), generated from
 * the wire schemas that also validate its query parameters, in the relayer's style
 * (src/relayer/http/openapi.ts).
 */
export function indexerOpenApiDocument(): object {
  if (cached) return cached
  const schemas = toJsonSchemaDefs(
    {
      ActivityEvent: ActivityEventSchema,
      ActivitySnapshot: ActivitySnapshotSchema,
      ActivityPage: ActivityPageSchema,
      ActivityQueryProblem: ActivityQueryProblemSchema,
      IndexerReadiness: IndexerReadinessSchema,
    },
    { typeMode: 'input', errorMode: 'ignore' },
  )
  // toJsonSchemaDefs emits `$defs` refs; OpenAPI components live under components/schemas.
  const text = JSON.stringify(schemas).replaceAll('#/$defs/', '#/components/schemas/')
  // Each query parameter's schema and description, from the same object that validates it.
  const query = toJsonSchema(ActivityQuerySchema, { typeMode: 'input', errorMode: 'ignore' }) as { properties: Record<string, { description?: string }> }
  const parameters = Object.entries(query.properties).map(([name, schema]) => {
    const { description, ...rest } = schema
    return { name, in: 'query', required: false, ...(description ? { description } : {}), schema: rest }
  })

  cached = {
    openapi: '3.1.0',
    info: {
      title: 'order-relay indexer',
      version: packageJson.version,
      description: 'Activity of the lien registry contracts, reorg-safe, from a durable index. Read-only, no authentication.',
    },
    paths: {
      '/activity': {
        get: {
          operationId: 'activity',
          summary: 'The indexed registry events and how fresh they are',
          description:
            'Without query parameters: the whole retained snapshot (ETag, 304 on If-None-Match). With any parameter: the matching events in chain order, at most `limit`, and `nextCursor` to continue.',
          parameters,
          responses: {
            '200': {
              description: 'ActivitySnapshot without parameters, ActivityPage with them.',
              headers: { ETag: { schema: { type: 'string' }, description: 'Strong tag over the body.' } },
              content: json({ oneOf: [ref('ActivitySnapshot'), ref('ActivityPage')] }),
            },
            '304': { description: 'Not modified: the If-None-Match tag still matches.' },
            '400': { description: 'BAD_QUERY: a query parameter was refused; `parameter` names it.', content: json(ref('ActivityQueryProblem')) },
            '503': { description: 'UNAVAILABLE: no snapshot built yet; retry shortly.', content: json(unavailable) },
          },
        },
      },
      '/ready': {
        get: {
          operationId: 'ready',
          summary: 'Readiness: 200 once caught up with the head, 503 with a reason otherwise',
          responses: {
            '200': { description: 'Caught up: the head is readable and the index is fresh.', content: json(ref('IndexerReadiness')) },
            '503': { description: 'Not ready: see `reason`.', content: json(ref('IndexerReadiness')) },
          },
        },
      },
      '/health': {
        get: {
          operationId: 'health',
          summary: 'Liveness: the process answers',
          responses: { '200': { description: 'Always `ok` while the process runs.', content: { 'text/plain': { schema: { const: 'ok' } } } } },
        },
      },
      '/api/openapi.json': {
        get: {
          operationId: 'openapi',
          summary: 'This document',
          responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      },
    },
    components: { schemas: JSON.parse(text) },
  }
  return cached
}
