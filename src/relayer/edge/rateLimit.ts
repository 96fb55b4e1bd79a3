import { createMiddleware } from 'hono/factory'
import type { AccessLogVariables } from '../accessLog.ts'
import { clientIp, type SocketReader } from './clientIp.ts'
import type { TrustedProxies } from './trustedProxies.ts'
import { type EdgeRefusal, edgeReject } from './reject.ts'
import type { TokenVerdict } from './tokenBucket.ts'

export type RateLimitOptions = {
  /** The in-memory buckets, or buckets shared by relayer replicas in Redis (async). */
  buckets: { take(key: string): TokenVerdict | Promise<TokenVerdict> }
  /** Key clients by `X-Forwarded-For` (as far as `trustedProxies` says) instead of the socket address. */
  trustProxy: boolean
  trustedProxies?: TrustedProxies
  /** For the message: the configured rate and burst. */
  ratePerSec: number
  burst: number
}

export type RateLimit = {
  /** Takes a token for the request's client, or refuses it. */
  check(request: Request, server: SocketReader | undefined): EdgeRefusal | undefined | Promise<EdgeRefusal | undefined>
  /** `check` on every hono route but CORS preflights. */
  middleware: ReturnType<typeof createMiddleware<{ Variables: AccessLogVariables }>>
}

/**
 * Per-client token bucket (SPEC.md 4.5 item 1): a request over the client's budget is
 * answered 429 `RATE_LIMITED` with `Retry-After` in whole seconds, after which the
 * next request passes. CORS preflights (`OPTIONS`) are never counted: a browser that
 * got a 429 on its preflight would report a CORS failure instead of the limit.
 *
 * @example
 * const limit = rateLimit({ buckets: createTokenBuckets({ ratePerSec: 5, burst: 20 }), trustProxy: false, ratePerSec: 5, burst: 20 })
 * app.use(limit.middleware)
 */
export function rateLimit(options: RateLimitOptions): RateLimit {
  const { buckets, trustProxy, trustedProxies, ratePerSec, burst } = options
  const keying = trustedProxies ? { trustProxy, trustedProxies } : { trustProxy }
  const refuse = (verdict: TokenVerdict): EdgeRefusal | undefined => {
    if (verdict.allowed) return undefined
    const seconds = verdict.retryAfterSeconds
    return {
      code: 'RATE_LIMITED',
      message: `rate limit exceeded for this client (${ratePerSec} requests/s, burst ${burst}); retry after ${seconds} s`,
      headers: { 'Retry-After': String(seconds) },
    }
  }
  function check(request: Request, server: SocketReader | undefined) {
    const verdict = buckets.take(clientIp(request, server, keying))
    return verdict instanceof Promise ? verdict.then(refuse) : refuse(verdict)
  }
  const middleware = createMiddleware<{ Variables: AccessLogVariables }>(async function rateLimit(c, next) {
    if (c.req.method === 'OPTIONS') return next()
    const refusal = await check(c.req.raw, c.env as SocketReader | undefined)
    if (refusal) return edgeReject(c, refusal)
    await next()
  })
  return { check, middleware }
}
