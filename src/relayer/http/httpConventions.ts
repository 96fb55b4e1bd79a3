// The HTTP conventions every relayer route keeps: HEAD answers as GET would, and a miss is
// a JSON 404, or a 405 with Allow where the path is served with other methods.
import type { Context, MiddlewareHandler } from 'hono'
import type { RouteFailure } from '../../wire/index.ts'
import type { AccessLogVariables } from '../accessLog.ts'

/** A route as hono lists it (`app.routes`): middleware has the method `ALL`. */
type Route = { method: string; path: string }

/**
 * The methods the routes serve at each path pattern (`/broker/:orderHash` as a regex),
 * HEAD wherever GET is (hono answers HEAD with the GET route) and OPTIONS everywhere.
 */
function methodsByPattern(routes: readonly Route[]): { pattern: RegExp; allow: string[] }[] {
  const byPath = new Map<string, Set<string>>()
  for (const { method, path } of routes) {
    if (method === 'ALL') continue
    const methods = byPath.get(path) ?? new Set<string>()
    methods.add(method)
    if (method === 'GET') methods.add('HEAD')
    byPath.set(path, methods)
  }
  return [...byPath].map(([path, methods]) => {
    const source = path
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/')
    return { pattern: new RegExp(`^${source}$`), allow: [...methods, 'OPTIONS'] }
  })
}

/**
 * The relayer's answer where no route matched (hono's `notFound`), JSON like every
 * other failure and repeating neither the path nor the method:
 * - a path that routes serve with other methods: 405 METHOD_NOT_ALLOWED with `Allow`;
 *   for OPTIONS, 204 with `Allow` (a CORS preflight the CORS middleware did not grant,
 *   such as one for `POST /broker` without RELAYER_CORS_ORIGINS, is refused as CORS
 *   expects: without Access-Control-Allow-Origin);
 * - any other path: 404 NOT_FOUND.
 * The methods come from the app's own routes (`routes`, read at the first miss).
 *
 * @example
 * app.notFound(routeFallback(() => app.routes))
 */
export function routeFallback(routes: () => readonly Route[]) {
  let known: ReturnType<typeof methodsByPattern> | undefined
  return (c: Context<{ Variables: AccessLogVariables }>) => {
    known ??= methodsByPattern(routes())
    const allow = known.filter(({ pattern }) => pattern.test(c.req.path)).flatMap((each) => each.allow)
    if (allow.length === 0) {
      c.set('code', 'NOT_FOUND')
      return c.json({ ok: false, code: 'NOT_FOUND', message: 'no such route: GET /api/openapi.json lists the routes this relayer serves' } satisfies RouteFailure, 404)
    }
    const methods = [...new Set(allow)].join(', ')
    c.header('Allow', methods)
    if (c.req.method === 'OPTIONS') return c.body(null, 204)
    c.set('code', 'METHOD_NOT_ALLOWED')
    return c.json({ ok: false, code: 'METHOD_NOT_ALLOWED', message: `this route answers ${methods} only (the Allow header lists them)` } satisfies RouteFailure, 405)
  }
}

/**
 * HEAD answers with the headers GET would, Content-Length included: hono runs the GET
 * route for a HEAD and drops the body, after which Bun would send `Content-Length: 0`.
 * A stream (`text/event-stream`) has no length to give and is left as it is.
 *
 * @example
 * app.use(headLikeGet)
 */
export const headLikeGet: MiddlewareHandler = async function headLikeGet(c, next) {
  await next()
  if (c.req.method !== 'HEAD' || !c.res.body || c.res.headers.get('content-type')?.startsWith('text/event-stream')) return
  const length = (await c.res.clone().arrayBuffer()).byteLength
  const headers = new Headers(c.res.headers)
  headers.set('Content-Length', String(length))
  c.res = new Response(null, { status: c.res.status, headers })
}
