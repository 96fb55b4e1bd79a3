import { type Context, Hono, type MiddlewareHandler } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { publicReadCors } from '../../shared/index.ts'
import type { RelayerInfo } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'
import { asRelayError, checkRequest, relayChecked } from '../pipeline.ts'
import { type AccessLogVariables, logAccess } from './accessLog.ts'
import { brokerStatus } from './brokerStatus.ts'
import { openApiDocument } from './openapi.ts'
import { maxBodyBytes, readJsonBody } from './readJsonBody.ts'
import { createBodyDeadlines } from './bodyDeadlines.ts'
import type { RequestDrain } from './requestDrain.ts'

export type RelayerAppOptions = {
  version: string
  /** Hardened-edge middleware, run before the routes (SPEC.md 4.5). */
  edge?: MiddlewareHandler[]
  /**
   * Entered by each request from the moment its headers arrived (body still to come)
   * and left once its answer is ready: the SIGTERM drain waits for these.
   */
  drain?: Pick<RequestDrain, 'enter' | 'leave'>
  /** Operations (docs/operations.md): `observe` counts every request, `routes` adds /ready, /status and /. */
  operations?: { observe: { begin(): number; end(c: Context, began: number): void }; routes: Hono<{ Variables: AccessLogVariables }> }
  /** How long a `POST /broker` body may take to arrive (default 10 s). */
  bodyTimeoutMs?: number
}

/** Read-only routes any origin may read, edge or not. */
export const relayerPublicReads = ['/info', '/api/openapi.json', '/health', '/ready', '/status', /^\/broker\/[^/]+$/]

type AppVariables = AccessLogVariables & { body: unknown }

/**
 * The relayer's HTTP surface: `POST /broker`, `GET /broker/{orderHash}`, `GET /info`,
 * `GET /health`, `GET /api/openapi.json`.
 * Every failure is mapped once, in `onError`, to `{ok:false, code, message}`.
 */
export function createRelayerApp(context: RelayerContext, options: RelayerAppOptions) {
  const app = new Hono<{ Variables: AppVariables }>()
  const info: RelayerInfo = {
    feeFloorBps: context.config.feeFloorBps,
    supportedChainIds: [context.config.chainId],
    relayer: context.submitter.address,
  }

  const deadlineMs = options.bodyTimeoutMs ?? 10_000
  const limits = { maxBytes: maxBodyBytes, deadlineMs, deadlines: createBodyDeadlines(deadlineMs) }

  // Metrics, the drain and the access log in one middleware (one async frame per request,
  // where three cost a rejection a sixth of its time). In the drain set from the start: a
  // body still arriving at SIGTERM is read, its order settled and answered before the
  // process exits (nothing broadcast unanswered).
  const { drain } = options
  const metrics = options.operations?.observe
  const { logger } = context
  app.use(async function observe(c, next) {
    const began = metrics?.begin() ?? 0
    drain?.enter()
    try {
      await next()
    } finally {
      drain?.leave()
      metrics?.end(c, began)
    }
    logAccess(logger, c)
  })
  app.use(publicReadCors(relayerPublicReads))
  // The body is read, with its size and time limits, before the edge: the in-flight cap
  // counts orders being settled, never clients slowly sending bytes.
  app.use('/broker', async function body(c, next) {
    if (c.req.method === 'POST') c.set('body', await readJsonBody(c, limits))
    await next()
  })
  for (const middleware of options.edge ?? []) app.use(middleware)

  // A refusal by the checks that need no I/O is answered at once: no throw, no async
  // frames to unwind (together more than half of a rejection's cost under load).
  app.post('/broker', (c): Response | Promise<Response> => {
    const checked = checkRequest(context, c.get('body'))
    if (checked instanceof RelayError) return answerFailure(c, checked)
    return relayChecked(context, checked).then((success) => {
      c.set('code', 'OK')
      return c.json(success, 200)
    })
  })
  app.get('/broker/:orderHash', async (c) => {
    const status = await brokerStatus(context, c.req.param('orderHash'))
    c.set('code', 'OK')
    return c.json(status, 200)
  })
  app.get('/info', (c) => c.json(info))
  // Liveness, as the indexer's: the process answers. Readiness (RPC, chain, gas floor) is GET /ready.
  app.get('/health', (c) => c.text('ok'))
  app.get('/api/openapi.json', (c) => c.json(openApiDocument(options.version)))
  if (options.operations) app.route('/', options.operations.routes)

  app.notFound((c) => {
    c.set('code', 'NOT_FOUND')
    return c.text('not found', 404)
  })
  app.onError((error, c) => answerFailure(c, error instanceof RelayError ? error : asRelayError(context, error)))
  return app
}

/** `{ok:false, code, message}` with the code's status; the code goes to the access log. */
function answerFailure(c: Context<{ Variables: AppVariables }>, failure: RelayError): Response {
  c.set('code', failure.code)
  return c.json(failure.toBody(), failure.status as ContentfulStatusCode)
}
