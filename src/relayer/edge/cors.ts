import type { Context } from 'hono'
import { cors } from 'hono/cors'
import { createMiddleware } from 'hono/factory'

export type EdgeCorsOptions = {
  /** Origins allowed to call `POST /broker` from a browser; `*` allows any. */
  origins: readonly string[]
}

/** The relayer's routes; any other path gets no CORS headers (and its plain 404). */
const relayerPaths = new Set(['/broker', '/info', '/api/openapi.json'])

/**
 * CORS for the relayer (SPEC.md 4.5 item 4), built on `hono/cors`:
 * - `POST /broker` (and its `OPTIONS` preflight): granted to the listed origins only;
 *   any other origin gets no `Access-Control-Allow-Origin`, so its browser refuses.
 *   Callers that send no `Origin` (server-side agents) are not browsers: CORS does
 *   not concern them and they pass.
 * - every other route (`GET /info`, `GET /api/openapi.json`): readable from any origin.
 * `Retry-After` is exposed so a page can read it from a 429. Preflights are answered
 * here, before the rate limit and the breaker, so they never see either. Paths that
 * are not relayer routes get no CORS at all.
 *
 * @example
 * app.use(edgeCors({ origins: ['https://app.example.com'] }))
 */
export function edgeCors(options: EdgeCorsOptions) {
  const anyOrigin = options.origins.includes('*')
  const allowed = new Set(options.origins)
  const isBroker = (c: Context) => c.req.path === '/broker'
  const grant = cors({
    origin: (origin, c) => {
      if (!isBroker(c)) return '*'
      if (anyOrigin) return '*'
      return allowed.has(origin) ? origin : null
    },
    allowMethods: (origin, c) => {
      if (!isBroker(c)) return ['GET', 'HEAD']
      return anyOrigin || allowed.has(origin) ? ['POST'] : []
    },
    allowHeaders: ['Content-Type'],
    exposeHeaders: ['Retry-After'],
    maxAge: 600,
  })
  return createMiddleware(async function edgeCors(c, next) {
    if (!relayerPaths.has(c.req.path)) return next()
    return grant(c, next)
  })
}
