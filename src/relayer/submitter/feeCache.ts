import type { PublicClient } from 'viem'
import { backgroundRefresh, type Logger, sharedInFlight } from '../../shared/index.ts'

export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }

/**
 * Gas prices fetched in the background rather than per order. `current()` is the
 * last good value; a failed refresh keeps it and tries again next tick.
 */
export function createFeeCache(client: PublicClient, options: { refreshMs: number; logger: Logger }) {
  let fees: Fees | undefined

  const refresh = sharedInFlight(async (): Promise<Fees> => {
    const estimate = await client.estimateFeesPerGas({ type: 'eip1559', chain: client.chain })
    fees = { maxFeePerGas: estimate.maxFeePerGas, maxPriorityFeePerGas: estimate.maxPriorityFeePerGas }
    return fees
  })
  const ticker = backgroundRefresh(refresh, { everyMs: options.refreshMs, logger: options.logger, what: 'gas price refresh' })

  return {
    /** Last known fees, fetching them first if none are known yet. */
    async current(): Promise<Fees> {
      return fees ?? refresh()
    },
    /** Fees read from the node now (for a replacement that must beat the current price). */
    fresh: refresh,
    start: ticker.start,
    stop: ticker.stop,
  }
}
