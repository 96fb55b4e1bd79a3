import type { PublicClient } from 'viem'
import { backgroundRefresh, type Logger } from '../shared/index.ts'

export type ChainClock = ReturnType<typeof createChainClock>

/**
 * The chain's time, estimated from the latest block polled in the background: its
 * timestamp plus the wall time since it was read. Chain time, not the relayer's
 * clock, decides whether an authorization has expired (a devnet may be warped).
 */
export function createChainClock(client: PublicClient, options: { refreshMs: number; logger: Logger }) {
  let sample: { timestamp: bigint; readAt: number } | undefined

  async function refresh() {
    const block = await client.getBlock({ blockTag: 'latest' })
    sample = { timestamp: block.timestamp, readAt: Date.now() }
  }
  const ticker = backgroundRefresh(refresh, { everyMs: options.refreshMs, logger: options.logger, what: 'chain head read' })

  return {
    /** Estimated chain time in unix seconds; reads the head if nothing is known yet. */
    async now(): Promise<bigint> {
      if (!sample) await refresh()
      const elapsed = BigInt(Math.floor((Date.now() - sample!.readAt) / 1000))
      return sample!.timestamp + elapsed
    },
    refresh,
    start: ticker.start,
    stop: ticker.stop,
  }
}
