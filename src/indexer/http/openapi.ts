import { toJsonSchema } from '@valibot/to-json-schema'
import {
  documentHead,
  headersTooLargeResponse,
  jsonContent,
  jsonExamples,
  type NamedExample,
  notFoundResponse,
  openApiPathItem,
  preflightOperation,
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
  ActivityStreamMessageSchema,
  ActivityStreamQuerySchema,
  IndexerReadinessSchema,
  IndexerStatusSchema,
  IndexerUnavailableSchema,
} from '../../wire/index.ts'
import {
  activityPageExample,
  activityQueryExamples,
  activitySnapshotExample,
  activityStreamExamples,
  activityStreamQueryExamples,
  badQueryExample,
  indexerStatusExample,
  internalErrorExample,
  noSnapshotExample,
  notReadyExamples,
  readyExample,
  tooManyStreamsExample,
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

/** A route's query parameters, each with the schema and description of the object that validates it. */
function queryParameters(schema: typeof ActivityQuerySchema | typeof ActivityStreamQuerySchema, examples: Record<string, string>) {
  const query = toJsonSchema(schema, { target: 'draft-2020-12', typeMode: 'input', errorMode: 'ignore' }) as {
    properties: Record<string, { description?: string }>
  }
  return Object.entries(query.properties).map(([name, { description, ...property }]) => ({
    name,
    in: 'query',
    required: false,
    ...(description ? { description } : {}),
    schema: property,
    example: examples[name],
  }))
}

const activityParameters = () => queryParameters(ActivityQuerySchema, activityQueryExamples)

/** `GET /activity/stream`: Server-Sent Events, described as the messages a client reads (docs/indexer.md "Live activity"). */
function activityStreamOperation() {
  return {
    operationId: 'activityStream',
    summary: 'The indexed registry events as they change: Server-Sent Events, resumable on any replica',
    description:
      'A `text/event-stream` (EventSource). Each message has an `event` field, an `id` (the cursor after it, except `reset`) and one line of JSON `data`: ' +
      '`status` first (with `retry: 2000`) and whenever the lag or `stale` changes (lag-only changes at most once a second); `events`: events as they are indexed (or replayed), in chain order, at most 500 each; ' +
      '`removed`: events sent earlier that a reorg took off the chain; `reset`: the cursor given cannot be resumed here (drop what this stream sent; the retained events follow); ' +
      '`cutoff`: the last message of a stream whose client did not take a message for INDEXER_STREAM_STALL_MS, with the cursor to resume from. ' +
      'A comment line (`: heartbeat`) is written after INDEXER_STREAM_HEARTBEAT_MS without a message. Reconnect with `Last-Event-ID` (EventSource does it itself) or `cursor` ' +
      'to resume with no gap and no duplicate, on this replica or another of the same PostgreSQL index. The response is documented below as the sequence of those messages.',
    tags: ['activity'],
    parameters: [
      ...queryParameters(ActivityStreamQuerySchema, activityStreamQueryExamples),
      {
        name: 'Last-Event-ID',
        in: 'header',
        required: false,
        description: 'The `id` of the last message received (EventSource sends it when it reconnects); wins over `cursor`.',
        schema: { type: 'string' },
        example: '44.3f9a0c1d',
      },
    ],
    responses: {
      '200': {
        description: 'The stream, open until the client leaves (or is cut off): its messages, in order, each as `{event, id, data}`.',
        headers: { 'Cache-Control': { description: 'Always `no-cache`.', schema: { type: 'string', const: 'no-cache' }, example: 'no-cache' } },
        content: { 'text/event-stream': { schema: { type: 'array', items: schemaRef('ActivityStreamMessage') }, examples: activityStreamExamples } },
      },
      '400': {
        description: 'BAD_QUERY: a query parameter or the Last-Event-ID header was refused; `parameter` names it.',
        content: jsonContent(schemaRef('ActivityQueryProblem'), badQueryExample),
      },
      '404': notFound,
      '503': {
        description: 'UNAVAILABLE: INDEXER_STREAM_MAX_CLIENTS streams are open already; retry after `Retry-After` seconds or use another replica.',
        headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'string' }, example: '5' } },
        content: jsonContent(schemaRef('IndexerUnavailable'), tooManyStreamsExample),
      },
    },
  }
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

type Operation = { responses: Record<string, ResponseObject>; [field: string]: unknown }

/** Every public read's CORS preflight, by path (the status page `/` has none: an OPTIONS there is 404). */
const preflights: Record<string, string> = {
  '/activity': 'activityPreflight',
  '/activity/stream': 'activityStreamPreflight',
  '/ready': 'readyPreflight',
  '/status': 'statusPreflight',
  '/health': 'healthPreflight',
  '/api/openapi.json': 'openApiDocumentPreflight',
}

/** The answers every path gives besides its routes' own: Bun's 431, and the CORS preflight (`options`) of each public read. */
function withEveryAnswer(paths: Record<string, Record<string, Operation>>) {
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => {
      const sorted = (responses: Record<string, ResponseObject>) => Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)))
      const operations = Object.fromEntries(Object.entries(item).map(([method, operation]) => [method, { ...operation, responses: sorted({ ...operation.responses, '431': headersTooLargeResponse }) }]))
      const operationId = preflights[path]
      if (!operationId) return [path, operations]
      const answers = 'Granted GET and HEAD to any origin, ETag and Retry-After exposed; an OPTIONS that is not a preflight for GET or HEAD is 404.'
      return [path, { ...operations, options: preflightOperation(operationId, path.startsWith('/activity') ? 'activity' : 'meta', answers, { '404': notFound, '431': headersTooLargeResponse }) }]
    }),
  )
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
        '/confirmations, /contacts and /receipts answer 501 NOT_IMPLEMENTED; any other path not listed here answers 404 `not found`. ' +
        "A request line or headers over ~16 KiB get the HTTP server's own 431 without a body.",
      serverDescription: 'The indexer that served this document.',
    }),
    tags: [
      { name: 'activity', description: 'The indexed registry events.' },
      { name: 'meta', description: 'Liveness, readiness, status and this document.' },
    ],
    paths: withEveryAnswer({
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
      '/activity/stream': { get: activityStreamOperation() },
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
    }),
    components: {
      schemas: schemaComponents({
        ActivityEvent: ActivityEventSchema,
        ActivitySnapshot: ActivitySnapshotSchema,
        ActivityPage: ActivityPageSchema,
        ActivityQueryProblem: ActivityQueryProblemSchema,
        ActivityStreamMessage: ActivityStreamMessageSchema,
        IndexerUnavailable: IndexerUnavailableSchema,
        IndexerReadiness: IndexerReadinessSchema,
        IndexerStatus: IndexerStatusSchema,
      }),
    },
  }
  cached = { version, document }
  return document
}
