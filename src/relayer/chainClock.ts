import type { PublicClient } from 'viem'
import { backgroundRefresh, type Logger } from '../shared/index.ts'

export type ChainClock = ReturnType<typeof createChainClock>

/**
 * When a transaction sent now would be mined, in unix seconds: the `pending` block's
 * timestamp (the node's own idea of the next block's time, a devnet's warps included;
 * the latest block's where `pending` is not served) plus the wall time since it was
 * read, and never earlier than the wall clock. The latest block alone is not enough: a
 * chain that mines nothing while idle keeps an old head, and an order that expired
 * seconds ago looked open (it was broadcast and reverted, paid by the gas key).
 */
export function createChainClock(client: PublicClient, options: { refreshMs: number; logger: Logger; wallClockMs?: () => number }) {
  const wallMs = options.wallClockMs ?? Date.now
  let sample: { timestamp: bigint; readAt: number } | undefined

  async function refresh() {
    const block = await client.getBlock({ blockTag: 'pending' }).catch(() => client.getBlock({ blockTag: 'latest' }))
    sample = { timestamp: block.timestamp, readAt: wallMs() }
  }
  const ticker = backgroundRefresh(refresh, { everyMs: options.refreshMs, logger: options.logger, what: 'chain head read' })

  return {
    /** The earliest time a transaction sent now can be mined at; reads the chain if nothing is known yet. */
    async now(): Promise<bigint> {
      if (!sample) await refresh()
      const elapsed = BigInt(Math.floor((wallMs() - sample!.readAt) / 1000))
      const chain = sample!.timestamp + elapsed
      const wall = BigInt(Math.floor(wallMs() / 1000))
      return chain > wall ? chain : wall
    },
    refresh,
    start: ticker.start,
    stop: ticker.stop,
  }
}
