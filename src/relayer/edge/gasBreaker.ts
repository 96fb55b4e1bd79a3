import type { EdgeRefusal } from './reject.ts'

export type GasBreakerOptions = {
  /** True while the relayer's balance is known to be below its floor (see `createBalanceWatch`). */
  paused: () => boolean
}

const refusal: EdgeRefusal = {
  code: 'INSUFFICIENT_RELAYER_GAS',
  message: 'relayer gas balance is below its floor, so POST /broker is paused until it is topped up; try another relayer or run your own',
}

/**
 * Relayer-gas circuit breaker (SPEC.md 4.5 item 3): while `paused()`, a `POST /broker`
 * is refused 503 `INSUFFICIENT_RELAYER_GAS` before the pipeline is touched. It reads a
 * flag kept by a background poll: no RPC call per request.
 *
 * @example
 * const watch = createBalanceWatch({ readBalance, floorWei: 10n ** 15n, pollMs: 5_000, logger })
 * const breaker = gasBreaker({ paused: watch.paused })
 * breaker() // undefined while the balance is above the floor
 */
export function gasBreaker(options: GasBreakerOptions): () => EdgeRefusal | undefined {
  const { paused } = options
  return () => (paused() ? refusal : undefined)
}
