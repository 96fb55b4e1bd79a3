import { createMiddleware } from 'hono/factory'
import type { AccessLogVariables } from '../http/accessLog.ts'
import { edgeReject } from './reject.ts'

export type ConcurrencyCapOptions = {
  /** Requests allowed in flight at once, over all clients. */
  max: number
}

/**
 * Global in-flight cap (SPEC.md 4.5 item 2): while `max` requests are being handled,
 * the next one is answered 429 `SERVER_BUSY` at once (with `Retry-After: 1`); nothing
 * ever waits in a queue. A slot is released when its handler has answered, whether it
 * succeeded or failed.
 *
 * @example
 * app.use('/broker', concurrencyCap({ max: 64 }))
 */
export function concurrencyCap(options: ConcurrencyCapOptions) {
  const { max } = options
  let inflight = 0
  return createMiddleware<{ Variables: AccessLogVariables }>(async function concurrencyCap(c, next) {
    if (inflight >= max) {
      return edgeReject(
        c,
        'SERVER_BUSY',
        `relayer is at its concurrency cap (${max} orders in flight); retry shortly or use another relayer`,
        { 'Retry-After': '1' },
      )
    }
    inflight++
    try {
      await next()
    } finally {
      inflight--
    }
  })
}
