import { createMiddleware } from 'hono/factory'
import type { AccessLogVariables } from '../http/accessLog.ts'
import { edgeReject } from './reject.ts'

export type GasBreakerOptions = {
  /** True while the relayer's balance is known to be below its floor (see `createBalanceWatch`). */
  paused: () => boolean
}

/**
 * Relayer-gas circuit breaker (SPEC.md 4.5 item 3): while `paused()`, answers 503
 * `INSUFFICIENT_RELAYER_GAS` without running what follows (the pipeline is never
 * touched). It reads a flag kept by a background poll: no RPC call per request.
 *
 * @example
 * const watch = createBalanceWatch({ readBalance, floorWei: 10n ** 15n, pollMs: 5_000, logger })
 * app.use('/broker', gasBreaker({ paused: watch.paused }))
 */
export function gasBreaker(options: GasBreakerOptions) {
  const { paused } = options
  return createMiddleware<{ Variables: AccessLogVariables }>(async function gasBreaker(c, next) {
    if (paused()) {
      return edgeReject(
        c,
        'INSUFFICIENT_RELAYER_GAS',
        'relayer gas balance is below its floor, so POST /broker is paused until it is topped up; try another relayer or run your own',
      )
    }
    await next()
  })
}
