import { Hono, type MiddlewareHandler } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { publicReadCors } from '../../shared/index.ts'
import type { RelayerInfo } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'
import { asRelayError, relay } from '../pipeline.ts'
import { type AccessLogVariables, accessLog } from './accessLog.ts'
import { brokerStatus } from './brokerStatus.ts'
import { openApiDocument } from './openapi.ts'
import { readJsonBody } from './readJsonBody.ts'

export type RelayerAppOptions = {
  version: string
  /** Hardened-edge middleware, run before the routes (SPEC.md 4.5). */
  edge?: MiddlewareHandler[]
  /** Called while a POST /broker is being handled (for draining on SIGTERM). */
  track?: <T>(work: Promise<T>) => Promise<T>
  /** Operations (docs/operations.md): `middleware` runs before everything, `routes` adds /ready, /status and /. */
  operations?: { middleware: MiddlewareHandler; routes: Hono<{ Variables: AccessLogVariables }> }
}

/** Read-only routes any origin may read, edge or not (`/broker/{orderHash}`, `/ready` as they are added). */
export const relayerPublicReads = ['/info', '/api/openapi.json', '/health', '/ready', /^\/broker\/[^/]+$/]

/**
 * The relayer's HTTP surface: `POST /broker`, `GET /broker/{orderHash}`, `GET /info`,
 * `GET /api/openapi.json`.
 * Every failure is mapped once, in `onError`, to `{ok:false, code, message}`.
 */
export function createRelayerApp(context: RelayerContext, options: RelayerAppOptions) {
  const app = new Hono<{ Variables: AccessLogVariables }>()
  const info: RelayerInfo = {
    feeFloorBps: context.config.feeFloorBps,
    supportedChainIds: [context.config.chainId],
    relayer: context.submitter.address,
  }
  const track = options.track ?? (<T>(work: Promise<T>) => work)

  if (options.operations) app.use(options.operations.middleware)
  app.use(accessLog(context.logger))
  app.use(publicReadCors(relayerPublicReads))
  for (const middleware of options.edge ?? []) app.use(middleware)

  app.post('/broker', async (c) => {
    const body = await readJsonBody(c)
    const success = await track(relay(context, body))
    c.set('code', 'OK')
    return c.json(success, 200)
  })
  app.get('/broker/:orderHash', async (c) => {
    const status = await brokerStatus(context, c.req.param('orderHash'))
    c.set('code', 'OK')
    return c.json(status, 200)
  })
  app.get('/info', (c) => c.json(info))
  app.get('/api/openapi.json', (c) => c.json(openApiDocument(options.version)))
  if (options.operations) app.route('/', options.operations.routes)

  app.notFound((c) => {
    c.set('code', 'NOT_FOUND')
    return c.text('not found', 404)
  })
  app.onError((error, c) => {
    const failure = error instanceof RelayError ? error : asRelayError(context, error)
    c.set('code', failure.code)
    return c.json(failure.toBody(), failure.status as ContentfulStatusCode)
  })
  return app
}
