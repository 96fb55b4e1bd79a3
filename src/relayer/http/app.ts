import { Hono } from 'hono'
import type { Hex } from 'viem'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { publicReadCors } from '../../shared/index.ts'
import type { RelayerInfo } from '../../wire/index.ts'
import type { GasSignerKind } from '../../signers/index.ts'
import type { RelayerContext } from '../context.ts'
import { effectiveGasPrice } from '../economics/index.ts'
import type { Edge, SocketReader } from '../edge/index.ts'
import { asRelayError } from '../errors.ts'
import type { AccessLogVariables } from '../accessLog.ts'
import { type BrokerPipeline, createBrokerRoute } from './brokerRoute.ts'
import { brokerStatus } from './brokerStatus.ts'
import { brokerStatusStream } from './brokerStatusStream.ts'
import { openApiDocument } from './openapi.ts'
import { maxBodyBytes } from './readJsonBody.ts'
import { createBodyDeadlines } from './bodyDeadlines.ts'
import type { RequestDrain } from './requestDrain.ts'
import { createRequestObserver, type RequestMetrics } from './requestObserver.ts'
import { headLikeGet, routeFallback } from './httpConventions.ts'

export type RelayerAppOptions<Checked extends { orderHash: Hex }> = {
  version: string
  /** What `POST /broker` runs: the order pipeline (pipeline.ts), handed in by createRelayer. */
  pipeline: BrokerPipeline<Checked>
  /** The hardened edge (SPEC.md 4.5): middleware for the hono routes, a gate for `POST /broker`. */
  edge?: Pick<Edge, 'middleware' | 'broker'>
  /**
   * Entered by each request from the moment its headers arrived (body still to come)
   * and left once its answer is ready: the SIGTERM drain waits for these.
   */
  drain?: Pick<RequestDrain, 'enter' | 'leave' | 'closing'>
  /** Operations (docs/operations.md): `observe` counts every request, `routes` adds /ready, /status and /. */
  operations?: { observe: RequestMetrics; routes: Hono<{ Variables: AccessLogVariables }> }
  /** How long a `POST /broker` body may take to arrive (default 10 s). */
  bodyTimeoutMs?: number
  /** Where the gas key lives (GET /info's `signerKind`). */
  signerKind?: GasSignerKind
}

/** Read-only routes any origin may read, edge or not. */
export const relayerPublicReads = ['/info', '/api/openapi.json', '/health', '/ready', '/status', /^\/broker\/[^/]+$/]

/**
 * The relayer's HTTP surface: `POST /broker`, `GET /broker/{orderHash}`, `GET /info`,
 * `GET /health`, `GET /api/openapi.json`. `POST /broker` is `postBroker`, answered
 * without hono (brokerRoute.ts): the server routes it there directly (`routes`), and
 * the hono app hands it over too (for `app.request`), before any middleware. Every
 * other route is hono's, with every failure mapped once, in `onError`, to
 * `{ok:false, code, message}`.
 *
 * @example
 * const { app, routes } = createRelayerApp(context, { version, pipeline })
 * Bun.serve({ routes, fetch: app.fetch })
 */
export function createRelayerApp<Checked extends { orderHash: Hex }>(context: RelayerContext, options: RelayerAppOptions<Checked>) {
  const app = new Hono<{ Variables: AccessLogVariables }>()
  // SPEC's three fields, then what this relayer accepts as payment at current prices (docs/economics.md).
  const info = (): RelayerInfo => {
    const fees = context.submitter.lastFees()
    return {
      feeFloorBps: context.config.feeFloorBps,
      supportedChainIds: [context.config.chainId],
      relayer: context.submitter.address,
      acceptedTokens: context.economics.values.accepted(),
      acceptsUnpricedTokens: context.economics.config.unpricedGasBudgetWei > 0n,
      minMarginBps: context.economics.config.minMarginBps,
      ...(fees ? { gasPriceWei: String(effectiveGasPrice(fees)) } : {}),
      ...(options.signerKind ? { signerKind: options.signerKind } : {}),
    }
  }
  const { drain } = options
  const metrics = options.operations?.observe
  const observer = createRequestObserver({ logger: context.logger, ...(drain ? { drain } : {}), ...(metrics ? { metrics } : {}) })
  const deadlineMs = options.bodyTimeoutMs ?? 10_000
  const postBroker = createBrokerRoute(context, {
    pipeline: options.pipeline,
    limits: { maxBytes: maxBodyBytes, deadlineMs, deadlines: createBodyDeadlines(deadlineMs) },
    observer,
    ...(options.edge?.broker ? { gate: options.edge.broker } : {}),
  })
  // First, and never calling `next`: none of the middleware below runs for it.
  app.post('/broker', (c) => postBroker(c.req.raw, c.env as SocketReader | undefined))
  app.use(headLikeGet)

  // The drain, the metrics and the access line, in one middleware (one async frame).
  app.use(async function observe(c, next) {
    const began = observer.begin()
    try {
      await next()
      // Stopping: the answer tells a keep-alive client its connection ends (requestDrain.ts).
      if (observer.closing) c.res.headers.set('Connection', 'close')
    } finally {
      observer.end(began, c.req.method, c.req.path, c.res.status, c.get('code') ?? '-')
    }
  })
  app.use(publicReadCors(relayerPublicReads))
  for (const middleware of options.edge?.middleware ?? []) app.use(middleware)

  app.get('/broker/:orderHash', brokerStatusStream(context))
  app.get('/broker/:orderHash', async (c) => {
    const status = await brokerStatus(context, c.req.param('orderHash'))
    c.set('code', 'OK')
    return c.json(status, 200)
  })
  app.get('/info', (c) => c.json(info()))
  // Liveness, as the indexer's: the process answers. Readiness (RPC, chain, gas floor) is GET /ready.
  app.get('/health', (c) => c.text('ok'))
  app.get('/api/openapi.json', (c) => c.json(openApiDocument(options.version)))
  if (options.operations) app.route('/', options.operations.routes)

  // 404 NOT_FOUND, or 405 METHOD_NOT_ALLOWED (204 for OPTIONS) with Allow where the path is served with other methods.
  app.notFound(routeFallback(() => app.routes))
  app.onError((error, c) => {
    const failure = asRelayError(context, error)
    c.set('code', failure.code)
    return c.json(failure.toBody(), failure.status as ContentfulStatusCode)
  })
  /** For `Bun.serve`: `POST /broker` straight to its route, past hono's router. */
  const routes = { '/broker': { POST: postBroker } }
  return { app, routes, postBroker }
}
