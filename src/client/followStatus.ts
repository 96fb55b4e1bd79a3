import type { BrokerStatus } from '../wire/index.ts'
import { SubmitError } from './SubmitError.ts'

/** How often the status route is asked while an order is pending. */
export const followPollMs = 500

/**
 * The orderHash a relayer's 502 asks the client to follow: its message ends
 * "follow GET /broker/{orderHash} until it says settled or reverted" when the order's
 * tx may still settle (no receipt in time, a tx the relayer may replace with a higher
 * fee, an authorization used with its settlement not visible yet). Undefined otherwise.
 */
export function followedOrder(error: unknown): `0x${string}` | undefined {
  if (!(error instanceof SubmitError) || error.code !== 'UPSTREAM_RPC') return undefined
  return error.message.match(/GET \/broker\/(0x[0-9a-fA-F]{64})/)?.[1] as `0x${string}` | undefined
}

/**
 * Reads the order's status (`GET /broker/{orderHash}`, through `readStatus`) while it
 * is `pending`, until it is settled, reverted, or unknown to that relayer (its tx was
 * dropped: sending the request again is then what settles or refuses it), or `deadline`
 * (ms since epoch) passes. Unlike `waitForOrder`, a failed read (network, a 429 with
 * its Retry-After, a 502) is tried again until then: the caller already holds an answer.
 * @returns the last status read, or undefined when the deadline passed while pending
 */
export async function followStatus(readStatus: (orderHash: string) => Promise<BrokerStatus>, orderHash: `0x${string}`, deadline: number): Promise<BrokerStatus | undefined> {
  for (;;) {
    if (deadline - Date.now() <= 0) return undefined
    let pause = followPollMs
    try {
      const status = await readStatus(orderHash)
      if (status.status !== 'pending') return status
    } catch (error) {
      if (error instanceof SubmitError && error.retryAfter !== undefined) pause = error.retryAfter * 1000
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(pause, deadline - Date.now()))))
  }
}
