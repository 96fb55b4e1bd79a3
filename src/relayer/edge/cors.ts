import type { Context, MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'

export type EdgeCorsOptions = {
  /** Origins allowed to call `POST /broker` from a browser; `*` allows any. */
  origins: readonly string[]
}

export type EdgeCors = {
  /** For the hono routes: preflights (`OPTIONS /broker` included) and every read. */
  middleware: MiddlewareHandler
  /** The CORS headers of a `POST /broker` answer to a request from `origin` (null: none sent). */
  brokerHeaders(origin: string | null): Record<string, string>
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
 * A page may send `Prefer: respond-async` (202 with the order's status route), and can
 * read `Retry-After` (a 429), `Location` and `Preference-Applied` (a 202). Preflights are answered
 * here, before the rate limit and the breaker, so they never see either. Paths that
 * are not relayer routes get no CORS at all. `POST /broker` itself is answered outside
 * hono (http/brokerRoute.ts), with `brokerHeaders`: the same headers `hono/cors` gives
 * a non-preflight request.
 *
 * @example
 * const edgeCors = createEdgeCors({ origins: ['https://app.example.com'] })
 * app.use(edgeCors.middleware)
 */
export function createEdgeCors(options: EdgeCorsOptions): EdgeCors {
  const anyOrigin = options.origins.includes('*')
  const allowed = new Set(options.origins)
  const isBroker = (c: Context) => c.req.path === '/broker'
  /** Who may call `POST /broker`: the origin to grant, or null. */
  const brokerOrigin = (origin: string) => (anyOrigin ? '*' : allowed.has(origin) ? origin : null)
  const exposed = ['Retry-After', 'Location', 'Preference-Applied']
  const grant = cors({
    origin: (origin, c) => (isBroker(c) ? brokerOrigin(origin) : '*'),
    allowMethods: (origin, c) => {
      if (!isBroker(c)) return ['GET', 'HEAD']
      return brokerOrigin(origin) ? ['POST'] : []
    },
    allowHeaders: ['Content-Type', 'Prefer'],
    exposeHeaders: exposed,
    maxAge: 600,
  })
  const refused = { 'Access-Control-Expose-Headers': exposed.join(','), Vary: 'Origin' }
  const granted = new Map<string, Record<string, string>>()
  return {
    middleware: async function edgeCors(c, next) {
      if (!relayerPaths.has(c.req.path)) return next()
      return grant(c, next)
    },
    brokerHeaders(origin) {
      const grantedTo = brokerOrigin(origin ?? '')
      if (!grantedTo) return refused
      let headers = granted.get(grantedTo)
      if (!headers) granted.set(grantedTo, (headers = { 'Access-Control-Allow-Origin': grantedTo, ...refused }))
      return headers
    },
  }
}
