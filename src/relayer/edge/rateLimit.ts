import { createMiddleware } from 'hono/factory'
import type { AccessLogVariables } from '../http/accessLog.ts'
import { clientIp } from './clientIp.ts'
import type { TrustedProxies } from './trustedProxies.ts'
import { edgeReject } from './reject.ts'
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

/**
 * Per-client token bucket (SPEC.md 4.5 item 1): a request over the client's budget is
 * answered 429 `RATE_LIMITED` with `Retry-After` in whole seconds, after which the
 * next request passes. CORS preflights (`OPTIONS`) are never counted: a browser that
 * got a 429 on its preflight would report a CORS failure instead of the limit.
 *
 * @example
 * app.use(rateLimit({ buckets: createTokenBuckets({ ratePerSec: 5, burst: 20 }), trustProxy: false, ratePerSec: 5, burst: 20 }))
 */
export function rateLimit(options: RateLimitOptions) {
  const { buckets, trustProxy, trustedProxies, ratePerSec, burst } = options
  return createMiddleware<{ Variables: AccessLogVariables }>(async function rateLimit(c, next) {
    if (c.req.method === 'OPTIONS') return next()
    const verdict = await buckets.take(clientIp(c, trustedProxies ? { trustProxy, trustedProxies } : { trustProxy }))
    if (!verdict.allowed) {
      const seconds = verdict.retryAfterSeconds
      return edgeReject(
        c,
        'RATE_LIMITED',
        `rate limit exceeded for this client (${ratePerSec} requests/s, burst ${burst}); retry after ${seconds} s`,
        { 'Retry-After': String(seconds) },
      )
    }
    await next()
  })
}
