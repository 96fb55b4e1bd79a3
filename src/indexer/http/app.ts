import { Hono } from 'hono'
import { type Logger, publicReadCors } from '../../shared/index.ts'
import type { BuiltSnapshot, SnapshotCache } from '../snapshot.ts'

/** Route families of the debtor confirmation flow (SPEC.md 1.3): reserved, not served here. */
export const reservedPaths = ['/confirmations', '/confirmations/*', '/contacts', '/contacts/*', '/receipts', '/receipts/*'] as const

const notImplemented = {
  ok: false,
  code: 'NOT_IMPLEMENTED',
  message: 'the debtor confirmation flow is not served by this process: /confirmations, /contacts and /receipts are reserved for it',
} as const

/**
 * The indexer's HTTP surface (SPEC.md 4.1): `GET /health`, `GET /activity` with an
 * ETag and 304 on a matching `If-None-Match`, 501 for the reserved families, 404
 * `not found` for anything else. No route says whether a lien is taken, and no
 * answer is ever a 500.
 */
export function createIndexerApp(snapshots: SnapshotCache, logger: Logger) {
  const app = new Hono()
  // Every indexer route is a public read: any origin may GET it (preflights answered).
  app.use(publicReadCors(['/health', '/ready', '/activity']))

  app.get('/health', (c) => c.text('ok'))

  app.get('/activity', (c) => {
    let built: BuiltSnapshot | undefined
    try {
      built = snapshots.current()
    } catch (error) {
      logger.error(`indexer: building the snapshot failed: ${error instanceof Error ? error.message : String(error)}`)
      built = snapshots.last()
    }
    if (!built) return c.json({ ok: false, code: 'UNAVAILABLE', message: 'no snapshot yet; retry shortly' }, 503)
    c.header('ETag', built.etag)
    c.header('Cache-Control', 'no-cache')
    if (etagMatches(c.req.header('if-none-match'), built.etag)) return c.body(null, 304)
    return c.body(built.body, 200, { 'Content-Type': 'application/json' })
  })

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
