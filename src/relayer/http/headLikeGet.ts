import type { MiddlewareHandler } from 'hono'

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
