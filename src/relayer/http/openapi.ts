import {
  documentHead,
  headersTooLargeResponse,
  jsonContent,
  jsonExamples,
  type NamedExample,
  openApiPathItem,
  preflightOperation,
  type ResponseObject,
  retryAfterHeader,
  schemaComponents,
  schemaRef,
} from '../../openapi/index.ts'
import {
  AdapterReceiptSchema,
  BrokeredSchema,
  BrokerStatusSchema,
  bytes32Pattern,
  EdgeRejectionSchema,
  OrderSchema,
  ReadinessSchema,
  RelayerStatusSchema,
  RelayerInfoSchema,
  RelayFailureSchema,
  RelayRequestSchema,
  RelaySuccessSchema,
  RouteFailureSchema,
  type RelayErrorCode,
  relayErrorCodes,
  SignatureSchema,
} from '../../wire/index.ts'
import {
  brokerStatusExample,
  edgeExamples,
  failureExamples,
  methodNotAllowedExample,
  notFoundExample,
  notReadyExample,
  readyExample,
  relayerInfoExample,
  relayerStatusExample,
  relayRequestExample,
  relaySuccessExample,
} from './openapiExamples.ts'
import { maxBodyBytes } from './readJsonBody.ts'

/** 429 from the hardened edge's rate limit, which every route is under when it is on. */
const rateLimited: ResponseObject = {
  description: 'RATE_LIMITED (hardened edge only): this client is over its request rate. Wait for Retry-After.',
  headers: retryAfterHeader,
  content: jsonExamples(schemaRef('EdgeRejection'), edgeExamples(['RATE_LIMITED'])),
}

/** 404 on every operation: the document lists every path, so this is the answer to any other. */
const notFound: ResponseObject = {
  description: 'NOT_FOUND: no route at this path (a misspelt path, a trailing slash): any path this document does not list.',
  content: jsonContent(schemaRef('RouteFailure'), notFoundExample),
}

/** 405 on every operation: the path's answer to a method it does not serve. */
const methodNotAllowed: ResponseObject = {
  description: 'METHOD_NOT_ALLOWED: this path answers only the methods this document lists for it (HEAD wherever GET is, and OPTIONS); any other method gets 405 with Allow.',
  headers: { Allow: { description: 'The methods this path answers.', schema: { type: 'string' }, example: 'GET, HEAD, OPTIONS' } },
  content: jsonContent(schemaRef('RouteFailure'), methodNotAllowedExample),
}

const publicRead = 'Granted GET and HEAD to any origin (a dApp reads it from the browser), with or without the hardened edge.'

/** What each route's preflight grants, by path. */
const preflights: Record<string, [operationId: string, tag: string, answers: string]> = {
  '/broker': ['brokerPreflight', 'relay', 'Granted POST to the origins in RELAYER_CORS_ORIGINS (hardened edge); refused to every other origin, and to all without it. Callers that send no Origin (servers) never preflight.'],
  '/broker/{orderHash}': ['brokerStatusPreflight', 'relay', publicRead],
  '/info': ['infoPreflight', 'meta', publicRead],
  '/health': ['healthPreflight', 'meta', publicRead],
  '/ready': ['readyPreflight', 'meta', publicRead],
  '/status': ['statusPreflight', 'meta', publicRead],
  '/': ['statusPagePreflight', 'meta', 'No CORS grant: the status page is opened directly, not read across origins.'],
  '/api/openapi.json': ['openApiDocumentPreflight', 'meta', publicRead],
}

type Operation = { responses: Record<string, ResponseObject>; parameters?: unknown[]; [field: string]: unknown }

/**
 * The answers every path gives besides its routes' own: 404 and 405 (the relayer's,
 * JSON), Bun's 431, and the CORS preflight (`options`) of each path.
 */
function withEveryAnswer(paths: Record<string, Record<string, Operation>>) {
  const sorted = (responses: Record<string, ResponseObject>) => Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)))
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => {
      const operations = Object.fromEntries(
        Object.entries(item).map(([method, operation]) => [method, { ...operation, responses: sorted({ ...operation.responses, '404': notFound, '405': methodNotAllowed, '431': headersTooLargeResponse }) }]),
      )
      const [operationId, tag, answers] = preflights[path] ?? [`${path}Preflight`, 'meta', publicRead]
      const parameters = Object.values(item).find((operation) => operation.parameters)?.parameters
      const options = { ...preflightOperation(operationId, tag, answers, { '404': notFound, '431': headersTooLargeResponse }), ...(parameters ? { parameters } : {}) }
      return [path, { ...operations, options }]
    }),
  )
}

/** What each relayer code means for the status it shares with others. */
const statusDescriptions: Record<number, string> = {
  400: `MALFORMED_ORDER (a field is wrong, the body is not JSON, or the body is over ${maxBodyBytes} bytes) or ORDERHASH_MISMATCH.`,
  402: 'FEE_BELOW_FLOOR: feeBps is below this relayer\'s floor (GET /info).',
  422: 'WOULD_REVERT (the simulation reverts: sold out, paused, wrong params…) or AUTH_EXPIRED (the authorization window has passed).',
  502: "UPSTREAM_RPC: the relayer's RPC failed; the message says whether a tx was broadcast.",
  503: 'INSUFFICIENT_RELAYER_GAS: the relayer cannot pay for gas (with the hardened edge, also while its balance is below the floor).',
}

function brokerResponses(): Record<string, ResponseObject> {
  const byStatus = new Map<number, RelayErrorCode[]>()
  for (const [code, { status }] of Object.entries(relayErrorCodes) as [RelayErrorCode, { status: number }][]) {
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  const responses: Record<string, ResponseObject> = {
    '200': { description: 'Settled: payment and grant landed atomically in one transaction.', content: jsonContent(schemaRef('RelaySuccess'), relaySuccessExample) },
    '202': {
      description:
        'Only to `Prefer: respond-async`: the transaction is broadcast and awaits its block. The body is the order\'s status (pending, with its ' +
        'txHash); Location is its status route, GET /broker/{orderHash}, to read until it is settled or reverted.',
      headers: {
        Location: { description: 'The order\'s status route, /broker/{orderHash}.', schema: { type: 'string' }, example: `/broker/${brokerStatusExample.orderHash}` },
        'Preference-Applied': { description: 'respond-async (RFC 7240).', schema: { type: 'string', const: 'respond-async' }, example: 'respond-async' },
      },
      content: jsonContent(schemaRef('BrokerStatus'), { orderHash: brokerStatusExample.orderHash, status: 'pending', txHash: brokerStatusExample.txHash }),
    },
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const examples: Record<string, NamedExample> = failureExamples(codes)
    if (status === 503) Object.assign(examples, { EDGE_GAS_BREAKER: edgeExamples(['INSUFFICIENT_RELAYER_GAS']).INSUFFICIENT_RELAYER_GAS })
    responses[String(status)] = {
      description: statusDescriptions[status] ?? codes.join(' or '),
      content: jsonExamples(schemaRef('RelayFailure'), examples),
    }
  }
  responses['429'] = {
    description: 'RATE_LIMITED or SERVER_BUSY (hardened edge only). Wait for Retry-After.',
    headers: retryAfterHeader,
    content: jsonExamples(schemaRef('EdgeRejection'), edgeExamples(['RATE_LIMITED', 'SERVER_BUSY'])),
  }
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)))
}

let cached: { version: string; document: object } | undefined

/**
 * The OpenAPI 3.1 document of the relayer, generated from the wire schemas (the
 * same objects that validate requests), never written by hand: every route, every
 * status it can answer (with and without the hardened edge), an example for every
 * body. Linted in CI with `@redocly/cli lint`, and the live answers are checked
 * against it through `prism proxy --errors` (test/openapi/prism.test.ts).
 */
export function openApiDocument(version: string): object {
  if (cached?.version === version) return cached.document
  const document = {
    ...documentHead({
      title: 'order-relay relayer',
      version,
      description:
        'Permissionless gas relayer: transmits a consumer-signed order as one transaction and pays its gas. ' +
        'No authentication. GET routes are readable from any origin; POST /broker from a browser only from the ' +
        'origins in RELAYER_CORS_ORIGINS (hardened edge). With the hardened edge on (RELAYER_HARDENED=1), every ' +
        'route may answer 429 RATE_LIMITED and POST /broker also 429 SERVER_BUSY or 503 INSUFFICIENT_RELAYER_GAS. ' +
        'HEAD on a GET route answers with the GET\'s status and headers and no body. A path not listed answers 404 ' +
        'NOT_FOUND, a method a path does not list 405 METHOD_NOT_ALLOWED with Allow (both JSON), and a request line or ' +
        'headers over ~16 KiB get the HTTP server\'s own 431 without a body.',
      serverDescription: 'The relayer that served this document.',
    }),
    tags: [
      { name: 'relay', description: 'Transmit signed orders.' },
      { name: 'meta', description: 'What this relayer is and how to talk to it.' },
    ],
    paths: withEveryAnswer({
      '/broker': {
        post: {
          operationId: 'broker',
          summary: 'Transmit a consumer-signed order',
          description:
            'Validates the request, checks the fee floor and the authorization window, simulates, broadcasts, and answers once the ' +
            '(with `Prefer: respond-async`: 202 once the transaction is broadcast; follow it at GET /broker/{orderHash}) ' +
            `transaction is mined. The body is JSON (Content-Type application/json) of at most ${maxBodyBytes} bytes (64 KiB); a larger ` +
            'one is MALFORMED_ORDER. Answers never echo the order or the signature.',
          tags: ['relay'],
          parameters: [
            {
              name: 'Prefer',
              in: 'header',
              required: false,
              description:
                '`respond-async` (RFC 7240): answer 202 once the transaction is broadcast instead of waiting for its receipt. Every refusal ' +
                'before broadcast, and an order already settled, is answered as without it. Other preferences are ignored.',
              schema: { type: 'string' },
              example: 'respond-async',
            },
          ],
          requestBody: {
            required: true,
            description: `A RelayRequest, at most ${maxBodyBytes} bytes.`,
            content: jsonContent(schemaRef('RelayRequest'), relayRequestExample),
          },
          responses: brokerResponses(),
        },
      },
      '/broker/{orderHash}': {
        get: {
          operationId: 'brokerStatus',
          summary: 'What this relayer knows about an order: pending, settled, reverted or unknown',
          description:
            "From this relayer's journal, else the Broker's Brokered logs (orders settled by any relayer). Readable from any origin; " +
            'a client that lost its answer reads the txHash here instead of sending the order again.',
          tags: ['relay'],
          parameters: [
            {
              name: 'orderHash',
              in: 'path',
              required: true,
              description: 'The orderHash, 0x + 64 hex digits.',
              schema: { type: 'string', pattern: bytes32Pattern.source },
              example: brokerStatusExample.orderHash,
            },
          ],
          responses: {
            '200': {
              description:
                'BrokerStatus. With `Accept: text/event-stream`: Server-Sent Events, one `status` message (`data` a BrokerStatus, `id` naming it) now and at each change, until the status is settled or reverted; then the stream ends (docs/routes.md).',
              content: {
                ...jsonContent(schemaRef('BrokerStatus'), brokerStatusExample),
                'text/event-stream': {
                  schema: { type: 'array', items: schemaRef('BrokerStatus'), description: 'The `data` of each `status` message, in order.' },
                  example: [{ orderHash: brokerStatusExample.orderHash, status: 'pending', txHash: brokerStatusExample.txHash }, brokerStatusExample],
                },
              },
            },
            '400': { description: 'MALFORMED_ORDER: the orderHash is not 0x + 64 hex digits.', content: jsonExamples(schemaRef('RelayFailure'), failureExamples(['MALFORMED_ORDER'])) },
            '429': rateLimited,
            '502': { description: "UPSTREAM_RPC: the Broker's logs could not be read.", content: jsonExamples(schemaRef('RelayFailure'), failureExamples(['UPSTREAM_RPC'])) },
          },
        },
      },
      '/info': {
        get: {
          operationId: 'info',
          summary: "This relayer's fee floor, chains and gas address",
          description: 'Readable from any origin: a dApp reads it to choose a relayer.',
          tags: ['meta'],
          responses: {
            '200': { description: 'RelayerInfo.', content: jsonContent(schemaRef('RelayerInfo'), relayerInfoExample) },
            '429': rateLimited,
          },
        },
      },
      '/health': {
        get: {
          operationId: 'health',
          summary: 'Liveness: the process answers',
          description: 'Always the text `ok` while the process runs, whatever the state of its RPC or gas key; readiness is GET /ready.',
          tags: ['meta'],
          responses: {
            '200': { description: 'The text `ok`.', content: { 'text/plain': { schema: { type: 'string', const: 'ok' }, example: 'ok' } } },
            '429': rateLimited,
          },
        },
      },
      '/ready': {
        get: {
          operationId: 'ready',
          summary: 'Readiness: the RPC answers, serves the configured chain, and the gas key is above the gas floor',
          description: 'For load balancers and orchestrators; liveness is GET /health.',
          tags: ['meta'],
          responses: {
            '200': { description: 'Ready: every check passed.', content: jsonContent(schemaRef('Readiness'), readyExample) },
            '429': rateLimited,
            '503': { description: 'Not ready: `reason` names the first failing check and what to do.', content: jsonContent(schemaRef('Readiness'), notReadyExample) },
          },
        },
      },
      '/status': {
        get: {
          operationId: 'status',
          summary: 'What the status page (GET /) shows: balance, floors, orders per minute, latency, pending transactions',
          tags: ['meta'],
          responses: {
            '200': { description: 'RelayerStatus.', content: jsonContent(schemaRef('RelayerStatus'), relayerStatusExample) },
            '429': rateLimited,
          },
        },
      },
      '/': {
        get: {
          operationId: 'statusPage',
          summary: 'The status page: an HTML page that polls GET /status',
          description: 'For an operator, in a browser: the balance, the floors, orders per minute, latency and pending transactions, refreshed from GET /status.',
          tags: ['meta'],
          responses: {
            '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' }, example: '<!doctype html><title>order-relay relayer</title>…' } } },
            '429': rateLimited,
          },
        },
      },
      '/api/openapi.json': openApiPathItem({ '429': rateLimited }),
    }),
    components: {
      schemas: schemaComponents({
        Order: OrderSchema,
        Signature: SignatureSchema,
        RelayRequest: RelayRequestSchema,
        Brokered: BrokeredSchema,
        AdapterReceipt: AdapterReceiptSchema,
        RelaySuccess: RelaySuccessSchema,
        RelayFailure: RelayFailureSchema,
        EdgeRejection: EdgeRejectionSchema,
        RelayerInfo: RelayerInfoSchema,
        BrokerStatus: BrokerStatusSchema,
        Readiness: ReadinessSchema,
        RelayerStatus: RelayerStatusSchema,
        RouteFailure: RouteFailureSchema,
      }),
    },
  }
  cached = { version, document }
  return document
}
