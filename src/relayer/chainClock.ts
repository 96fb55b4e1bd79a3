import type { PublicClient } from 'viem'
import { backgroundRefresh, type Logger, sharedInFlight } from '../shared/index.ts'

export type ChainClock = ReturnType<typeof createChainClock>

/**
 * How far the cached estimate may lag the chain: block timestamps are whole seconds,
 * so a sample read at 10.9 s says 10, and the estimate carries that second (and the
 * read's latency) until the next sample.
 */
const roundingSeconds = 2n

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

  const refresh = sharedInFlight(async () => {
    const block = await client.getBlock({ blockTag: 'pending' }).catch(() => client.getBlock({ blockTag: 'latest' }))
    sample = { timestamp: block.timestamp, readAt: wallMs() }
  })
  const ticker = backgroundRefresh(refresh, { everyMs: options.refreshMs, logger: options.logger, what: 'chain head read' })

  async function bounds(): Promise<{ chain: bigint; wall: bigint }> {
    if (!sample) await refresh()
    const elapsed = BigInt(Math.floor((wallMs() - sample!.readAt) / 1000))
    return { chain: sample!.timestamp + elapsed, wall: BigInt(Math.floor(wallMs() / 1000)) }
  }

  /**
   * The earliest it may be mined at, as far as `validAfter` goes: the smaller of the
   * chain's estimate and the wall clock, so neither a relayer clock running fast nor
   * an old head makes a not-yet-valid order look valid (a refusal costs nothing; a
   * revert costs the key gas).
   */
  async function earliest(): Promise<bigint> {
    const { chain, wall } = await bounds()
    return chain < wall ? chain : wall
  }

  return {
    /**
     * The latest a transaction sent now may be mined at, as far as expiry goes: the
     * chain's estimate, never behind the wall clock. Reads the chain if nothing is known yet.
     */
    async now(): Promise<bigint> {
      const { chain, wall } = await bounds()
      return chain > wall ? chain : wall
    },
    earliest,
    /** The chain's own estimate of when a tx sent now would be mined (no wall-clock bound): what "chain time" in a message means. */
    async chainEstimate(): Promise<bigint> {
      return (await bounds()).chain
    },
    /**
     * `earliest()` for judging `validAfter`: near it (at or below it by less than the
     * estimate's rounding) the node is read afresh, so an order sent at the second it
     * was told it is valid from is not refused for the rounding alone. Elsewhere the
     * cached estimate answers, with no RPC call; a failed fresh read keeps it too (a
     * refusal costs nothing).
     */
    async earliestFor(validAfter: bigint): Promise<bigint> {
      const cached = await earliest()
      if (cached > validAfter || validAfter - cached >= roundingSeconds) return cached
      return refresh().then(earliest, () => cached)
    },
    refresh,
    start: ticker.start,
    stop: ticker.stop,
  }
}
