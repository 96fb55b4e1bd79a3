import type { PublicClient } from 'viem'
import { backgroundRefresh, type Logger, sharedInFlight } from '../../shared/index.ts'
import type { FeeQuote } from '../economics/orderCost.ts'

export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
export type { FeeQuote }

/**
 * The base fee of the block after `block`, by EIP-1559 (elasticity 2, change at most an
 * eighth), and never below `block`'s own: on chains whose base fee is set otherwise
 * (Arbitrum's ArbOS) the formula would read a fall that does not come.
 */
export function nextBaseFee(block: { baseFeePerGas: bigint; gasUsed: bigint; gasLimit: bigint }): bigint {
  const target = block.gasLimit / 2n
  const { baseFeePerGas: base, gasUsed } = block
  if (target === 0n || gasUsed <= target) return base
  const rise = (base * (gasUsed - target)) / target / 8n
  return base + (rise > 0n ? rise : 1n)
}

/**
 * The fees txs are signed with, and the base fee the next block is expected to charge,
 * read in the background (every `refreshMs`) rather than per order: the latest block's
 * base fee and the node's suggested tip, at most `maxPriorityFeePerGas`
 * (RELAYER_MAX_PRIORITY_FEE_WEI: a node's suggestion can follow one block's outlier, as
 * anvil's does), the fee cap being 1.2 × the base fee plus the tip (viem's
 * `estimateFeesPerGas`), and never above `maxFeePerGas` (RELAYER_MAX_FEE_PER_GAS_WEI): no tx is
 * signed over it. `current()` is the last good value; a failed refresh keeps it and tries
 * again next tick.
 */
export function createFeeCache(client: PublicClient, options: { refreshMs: number; logger: Logger; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint }) {
  let fees: FeeQuote | undefined

  const refresh = sharedInFlight(async (): Promise<FeeQuote> => {
    const [block, suggested] = await Promise.all([client.getBlock({ blockTag: 'latest' }), client.estimateMaxPriorityFeePerGas({ chain: client.chain })])
    const base = block.baseFeePerGas ?? 0n
    const tipCap = options.maxPriorityFeePerGas
    const tip = tipCap !== undefined && suggested > tipCap ? tipCap : suggested
    const cap = options.maxFeePerGas
    let maxFeePerGas = (base * 12n + 9n) / 10n + tip
    if (cap !== undefined && maxFeePerGas > cap) maxFeePerGas = cap
    const maxPriorityFeePerGas = tip < maxFeePerGas ? tip : maxFeePerGas
    fees = { maxFeePerGas, maxPriorityFeePerGas, baseFeePerGas: nextBaseFee({ baseFeePerGas: base, gasUsed: block.gasUsed, gasLimit: block.gasLimit }) }
    return fees
  })
  const ticker = backgroundRefresh(refresh, { everyMs: options.refreshMs, logger: options.logger, what: 'gas price refresh' })

  return {
    /** Last known fees, fetching them first if none are known yet. */
    async current(): Promise<FeeQuote> {
      return fees ?? refresh()
    },
    /** Fees read from the node now (for a replacement that must beat the current price). */
    fresh: refresh,
    /** The last fees read, without reading (undefined before the first). */
    last: (): FeeQuote | undefined => fees,
    /** The cap no tx is signed over (RELAYER_MAX_FEE_PER_GAS_WEI), if any. */
    cap: options.maxFeePerGas,
    start: ticker.start,
    stop: ticker.stop,
  }
}
