import { createHash } from 'node:crypto'
import { Hono } from 'hono'
import { type Logger, publicReadCors } from '../../shared/index.ts'
import type { ActivityPage, IndexerReadiness } from '../../wire/index.ts'
import { parseQuery, selectPage } from '../query/index.ts'
import type { BuiltSnapshot, SnapshotCache } from '../snapshot.ts'
import type { ActivityStreamRoute } from '../stream/index.ts'
import { indexerOpenApiDocument } from './openapi.ts'

/** Route families of the debtor confirmation flow (SPEC.md 1.3): reserved, not served here. */
export const reservedPaths = ['/confirmations', '/confirmations/*', '/contacts', '/contacts/*', '/receipts', '/receipts/*'] as const

const notImplemented = {
  ok: false,
  code: 'NOT_IMPLEMENTED',
  message: 'the debtor confirmation flow is not served by this process: /confirmations, /contacts and /receipts are reserved for it',
} as const

export type IndexerAppOptions = {
  /** The version `GET /api/openapi.json` states (the package's). */
  version: string
  /** `GET /ready`'s answer; without it the route says not ready. */
  readiness?: () => IndexerReadiness
  /** `GET /status` and the status page `GET /` (docs/operations.md). */
  operations?: Hono
  /** `GET /activity/stream` (docs/indexer.md "Live activity"). */
  stream?: ActivityStreamRoute
}

/**
 * The indexer's HTTP surface (SPEC.md 4.1): `GET /health` (liveness), `GET /ready`
 * (readiness), `GET /activity` with an ETag and 304 on a matching `If-None-Match`
 * and optional query parameters (docs/indexer.md), `GET /activity/stream` (Server-Sent
 * Events of the same events as they change), `GET /api/openapi.json`, 501 for
 * the reserved families, 404 `not found` for anything else. No route says whether a
 * lien is taken, and no answer is ever a 500.
 */
export function createIndexerApp(snapshots: SnapshotCache, logger: Logger, options: IndexerAppOptions) {
  const app = new Hono()
  // Every indexer route is a public read: any origin may GET it (preflights answered).
  app.use(publicReadCors(['/health', '/ready', '/status', '/activity', '/activity/stream', '/api/openapi.json']))
  // GET /status and the status page GET / (docs/operations.md); every other unknown path stays 404.
  if (options.operations) app.route('/', options.operations)

  app.get('/health', (c) => c.text('ok'))

  app.get('/ready', (c) => {
    const state = options.readiness?.()
    if (!state) return c.json({ ready: false, reason: 'head-unreadable', message: 'not started', indexedThrough: '0', head: null, lagBlocks: 0 }, 503)
    c.header('Cache-Control', 'no-store')
    return c.json(state, state.ready ? 200 : 503)
  })

  app.get('/api/openapi.json', (c) => c.json(indexerOpenApiDocument(options.version)))

  app.get('/activity', (c) => {
    const parsed = parseQuery(c.req.queries())
    if (parsed && 'problem' in parsed) return c.json(parsed.problem, 400)
    let built: BuiltSnapshot | undefined
    try {
      built = snapshots.current()
    } catch (error) {
      logger.error(`indexer: building the snapshot failed: ${error instanceof Error ? error.message : String(error)}`)
      built = snapshots.last()
    }
    if (!built) return c.json({ ok: false, code: 'UNAVAILABLE', message: 'no snapshot yet; retry shortly' }, 503)
    if (parsed) {
      const { events, nextCursor } = selectPage(built.snapshot.events, parsed.query)
      const page: ActivityPage = { ...built.snapshot, events, nextCursor }
      const body = JSON.stringify(page)
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`
      c.header('ETag', etag)
      c.header('Cache-Control', 'no-cache')
      if (etagMatches(c.req.header('if-none-match'), etag)) return c.body(null, 304)
      return c.body(body, 200, { 'Content-Type': 'application/json' })
    }
    c.header('ETag', built.etag)
    c.header('Cache-Control', 'no-cache')
    if (etagMatches(c.req.header('if-none-match'), built.etag)) return c.body(null, 304)
    return c.body(built.body, 200, { 'Content-Type': 'application/json' })
  })

  const { stream } = options
  if (stream) app.get('/activity/stream', (c) => stream.handle(c))

  for (const path of reservedPaths) app.all(path, (c) => c.json(notImplemented, 501))

  app.notFound((c) => c.text('not found', 404))
  app.onError((error, c) => {
    logger.error(`indexer: ${c.req.method} ${c.req.path} failed: ${error.message}`)
    return c.json({ ok: false, code: 'UNAVAILABLE', message: 'internal error; retry shortly' }, 503)
  })
  return app
}

/** `If-None-Match` (a list, `*`, weak tags) against our strong ETag, by weak comparison (RFC 9110 13.1.2). */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false
  if (header.trim() === '*') return true
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
}
