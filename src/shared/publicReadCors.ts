import type { MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'

/** A public read route: an exact path, or a pattern (e.g. `/broker/{orderHash}`). */
export type PublicReadPath = string | RegExp

/**
 * CORS for read-only public routes, on by default and independent of the hardened
 * edge: any origin may `GET`/`HEAD` the listed paths and read the answer (a dApp reads
 * a relayer's `/info` to choose one), and their preflights are answered here with 204.
 * Other methods and paths are left alone, so `POST /broker` keeps its own rule (the
 * edge's `RELAYER_CORS_ORIGINS`). `Retry-After` and `ETag` are exposed so a page can
 * read a 429's delay and revalidate `/activity`.
 *
 * @example
 * app.use(publicReadCors(['/info', /^\/broker\/[^/]+$/]))
 */
export function publicReadCors(paths: readonly PublicReadPath[]): MiddlewareHandler {
  const isPublic = (path: string) => paths.some((entry) => (typeof entry === 'string' ? entry === path : entry.test(path)))
  const grant = cors({ origin: '*', allowMethods: ['GET', 'HEAD'], exposeHeaders: ['Retry-After', 'ETag'], maxAge: 600 })
  // Not async, and the method tested before the path: a POST passes straight through.
  return function publicReadCors(c, next) {
    const method = c.req.method
    if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') return next()
    if (!isPublic(c.req.path)) return next()
    const preflightForRead = method === 'OPTIONS' && /^(GET|HEAD)$/i.test(c.req.header('access-control-request-method') ?? '')
    if (method === 'OPTIONS' && !preflightForRead) return next()
    return grant(c, next)
  }
}
