import type { BrokerStatus } from '../wire/index.ts'
import { SubmitError } from './SubmitError.ts'

export type WaitForOrderOptions = {
  /** Give up after this many milliseconds with a `SubmitError` `TIMEOUT` (default 120000). */
  timeout?: number
  /** Milliseconds between two `GET /broker/{orderHash}` (default 500). */
  pollingInterval?: number
}

/** The statuses an order does not leave: a settlement is on chain, or this relayer's tx reverted. */
const final = new Set<BrokerStatus['status']>(['settled', 'reverted'])

/**
 * Reads `status(orderHash)` until the order is settled or reverted, and returns that
 * status. `pending` (its tx awaits a block) and `unknown` (not seen yet) are read again
 * every `pollingInterval`; a failed read (`NETWORK`, `UPSTREAM_RPC`…) is thrown at once.
 *
 * @throws SubmitError `TIMEOUT` naming the last status seen, or the code of a failed read
 * @example
 * const { status, txHash } = await waitForOrder((hash) => client.status(hash), orderHash, { timeout: 30_000 })
 */
export async function waitForOrder(
  readStatus: (orderHash: string) => Promise<BrokerStatus>,
  orderHash: string,
  options: WaitForOrderOptions = {},
): Promise<BrokerStatus> {
  const timeout = options.timeout ?? 120_000
  const interval = options.pollingInterval ?? 500
  const deadline = Date.now() + timeout
  for (;;) {
    const seen = await readStatus(orderHash)
    if (final.has(seen.status)) return seen
    const left = deadline - Date.now()
    if (left <= 0) {
      const tx = seen.txHash ? ` (tx ${seen.txHash})` : ''
      throw new SubmitError(
        'TIMEOUT',
        `order ${orderHash} is still ${seen.status}${tx} after ${timeout} ms; wait longer (waitForOrder again) or read its status later`,
        { status: 200 },
      )
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(interval, left)))
  }
}
