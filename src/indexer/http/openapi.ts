import { toJsonSchema } from '@valibot/to-json-schema'
import {
  documentHead,
  jsonContent,
  jsonExamples,
  type NamedExample,
  notFoundResponse,
  openApiPathItem,
  type ResponseObject,
  schemaComponents,
  schemaRef,
} from '../../openapi/index.ts'
import {
  ActivityEventSchema,
  ActivityPageSchema,
  ActivityQueryProblemSchema,
  ActivityQuerySchema,
  ActivitySnapshotSchema,
  IndexerReadinessSchema,
  IndexerStatusSchema,
  IndexerUnavailableSchema,
} from '../../wire/index.ts'
import {
  activityPageExample,
  activityQueryExamples,
  activitySnapshotExample,
  badQueryExample,
  indexerStatusExample,
  internalErrorExample,
  noSnapshotExample,
  notReadyExamples,
  readyExample,
} from './openapiExamples.ts'

/**
 * 404 on every operation: the indexer answers the text `not found` for any path it
 * does not serve (a misspelt path, a trailing slash), and the recommended lint rules
 * want a 4XX on every operation; the indexer has no rate limit, so this is its only one.
 */
const notFound: ResponseObject = notFoundResponse

/** 503 from the error handler: a route failed unexpectedly (never a 500). */
const failed: ResponseObject = {
  description: 'UNAVAILABLE: the route failed unexpectedly (logged); retry shortly.',
  content: jsonContent(schemaRef('IndexerUnavailable'), internalErrorExample),
}

const noStore = { 'Cache-Control': { description: 'Always `no-store`.', schema: { type: 'string', const: 'no-store' }, example: 'no-store' } }

/** `GET /activity`'s query parameters, each with the schema and description of the object that validates it. */
function activityParameters() {
  const query = toJsonSchema(ActivityQuerySchema, { target: 'draft-2020-12', typeMode: 'input', errorMode: 'ignore' }) as {
    properties: Record<string, { description?: string }>
  }
  return Object.entries(query.properties).map(([name, { description, ...schema }]) => ({
    name,
    in: 'query',
    required: false,
    ...(description ? { description } : {}),
    schema,
    example: activityQueryExamples[name],
  }))
}

function activityResponses(): Record<string, ResponseObject> {
  const tag = { description: 'Strong tag over the body; send it back as If-None-Match.', schema: { type: 'string' }, example: '"Qm9keVRhZ09mVGhlU25hcHNob3RJbkI2NA"' }
  const cacheControl = { description: 'Always `no-cache`: revalidate with If-None-Match.', schema: { type: 'string', const: 'no-cache' }, example: 'no-cache' }
  const bodies: Record<string, NamedExample> = {
    snapshot: { summary: 'No query parameter: the whole retained snapshot (ActivitySnapshot)', value: activitySnapshotExample },
    page: { summary: 'address=…&limit=1: one page and the cursor for the next (ActivityPage)', value: activityPageExample },
  }
  // anyOf, not oneOf: a page is a snapshot with one more field, so it matches both.
  return {
    '200': {
      description: 'ActivitySnapshot without query parameters; ActivityPage (the snapshot over the matching events, plus `nextCursor`) with any.',
      headers: { ETag: tag, 'Cache-Control': cacheControl },
      content: jsonExamples({ anyOf: [schemaRef('ActivitySnapshot'), schemaRef('ActivityPage')] }, bodies),
    },
    '304': { description: 'Not modified: If-None-Match still matches the ETag of the answer (no body).', headers: { ETag: tag, 'Cache-Control': cacheControl } },
    '400': {
      description: 'BAD_QUERY: a query parameter was refused (unknown, repeated, or not of its form); `parameter` names it.',
      content: jsonContent(schemaRef('ActivityQueryProblem'), badQueryExample),
    },
    '404': notFound,
    '503': {
      description: 'UNAVAILABLE: no snapshot built yet (just started), or building it failed with none to fall back on; retry shortly.',
      content: jsonExamples(schemaRef('IndexerUnavailable'), {
        starting: { summary: 'No snapshot yet', value: noSnapshotExample },
        failed: { summary: 'The route failed unexpectedly', value: internalErrorExample },
      }),
    },
  }
}

let cached: { version: string; document: object } | undefined

/**
 * The OpenAPI 3.1 document of the indexer (`GET /api/openapi.json`), generated from
 * the wire schemas that also validate its query parameters: every route, every status
 * it can answer, an example for every body (each one accepted by its own schema,
 * test/openapi/indexerDocument.test.ts). Linted in CI with `@redocly/cli lint`.
 */
export function indexerOpenApiDocument(version: string): object {
  if (cached?.version === version) return cached.document
  const readinessExamples: Record<string, NamedExample> = Object.fromEntries(
    Object.entries(notReadyExamples).map(([reason, value]) => [reason, { summary: value.message ?? reason, value }]),
  )
  const document = {
    ...documentHead({
      title: 'order-relay indexer',
      version,
      description:
        'Activity of the lien registry contracts (registry, inbox, pool, escrow), reorg-safe, from a durable index. ' +
        'Read-only and unauthenticated; every route is readable from any origin. The reserved route families ' +
        '/confirmations, /contacts and /receipts answer 501 NOT_IMPLEMENTED; any other path not listed here answers 404 `not found`.',
      serverDescription: 'The indexer that served this document.',
    }),
    tags: [
      { name: 'activity', description: 'The indexed registry events.' },
      { name: 'meta', description: 'Liveness, readiness, status and this document.' },
    ],
    paths: {
      '/activity': {
        get: {
          operationId: 'activity',
          summary: 'The indexed registry events and how fresh they are',
          description:
            'Without query parameters: the whole retained snapshot. With any parameter: the matching events in chain order, at most ' +
            '`limit`, and `nextCursor` to pass as `cursor` for the next page. Both carry an ETag and answer 304 on a matching If-None-Match.',
          tags: ['activity'],
          parameters: [
            ...activityParameters(),
            {
              name: 'If-None-Match',
              in: 'header',
              required: false,
              description: 'The ETag of an earlier answer: 304 without a body while it still matches.',
              schema: { type: 'string' },
              example: '"Qm9keVRhZ09mVGhlU25hcHNob3RJbkI2NA"',
            },
          ],
          responses: activityResponses(),
        },
      },
      '/ready': {
        get: {
          operationId: 'ready',
          summary: 'Readiness: 200 once caught up with the head, 503 with a reason otherwise',
          description: 'For load balancers and orchestrators. Liveness is GET /health.',
          tags: ['meta'],
          responses: {
            '200': { description: 'Ready: the head is readable and the index is caught up.', headers: noStore, content: jsonContent(schemaRef('IndexerReadiness'), readyExample) },
            '404': notFound,
            '503': {
              description: 'Not ready: `reason` is head-unreadable, repairing, backfilling or stale; `message` says it in words.',
              content: jsonExamples(schemaRef('IndexerReadiness'), readinessExamples),
            },
          },
        },
      },
      '/status': {
        get: {
          operationId: 'status',
          summary: 'What the status page (GET /) shows: sync progress, lag, events by name over the last 100 blocks, the last reorg',
          tags: ['meta'],
          responses: {
            '200': { description: 'IndexerStatus.', headers: noStore, content: jsonContent(schemaRef('IndexerStatus'), indexerStatusExample) },
            '404': notFound,
            '503': failed,
          },
        },
      },
      '/': {
        get: {
          operationId: 'statusPage',
          summary: 'The status page: an HTML page that polls GET /status',
          tags: ['meta'],
          responses: {
            '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' }, example: '<!doctype html><title>order-relay indexer</title>…' } } },
            '404': notFound,
          },
        },
      },
      '/health': {
        get: {
          operationId: 'health',
          summary: 'Liveness: the process answers',
          description: 'Always the text `ok` while the process runs, however stale the index; readiness is GET /ready.',
          tags: ['meta'],
          responses: {
            '200': { description: 'The text `ok`.', content: { 'text/plain': { schema: { type: 'string', const: 'ok' }, example: 'ok' } } },
            '404': notFound,
          },
        },
      },
      '/api/openapi.json': openApiPathItem({ '404': notFound }),
    },
    components: {
      schemas: schemaComponents({
        ActivityEvent: ActivityEventSchema,
        ActivitySnapshot: ActivitySnapshotSchema,
        ActivityPage: ActivityPageSchema,
        ActivityQueryProblem: ActivityQueryProblemSchema,
        IndexerUnavailable: IndexerUnavailableSchema,
        IndexerReadiness: IndexerReadinessSchema,
        IndexerStatus: IndexerStatusSchema,
      }),
    },
  }
  cached = { version, document }
  return document
}
