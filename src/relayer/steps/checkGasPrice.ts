import type { RelayerContext } from '../context.ts'
import type { FeeQuote } from '../economics/index.ts'
import { RelayError } from '../errors.ts'

/**
 * The fees the order's tx would be signed with, and the operator's cap on them: while the
 * chain's base fee is over RELAYER_MAX_FEE_PER_GAS_WEI no tx could be mined under the cap,
 * so new orders are refused until it falls (pending txs wait).
 * @throws RelayError INSUFFICIENT_RELAYER_GAS over the cap, UPSTREAM_RPC when the fees cannot be read
 */
export async function checkGasPrice(context: Pick<RelayerContext, 'submitter' | 'economics'>): Promise<FeeQuote> {
  let fees: FeeQuote
  try {
    fees = await context.submitter.currentFees()
  } catch (error) {
    throw new RelayError('UPSTREAM_RPC', "the relayer's RPC failed while reading the gas price; retry or try another relayer", { cause: error })
  }
  const cap = context.economics.config.maxFeePerGasWei
  // Refused only on a price read now: the cached one may be seconds old, and prices fall too.
  if (cap !== undefined && fees.baseFeePerGas > cap) fees = await context.submitter.freshFees().catch(() => fees)
  if (cap !== undefined && fees.baseFeePerGas > cap) {
    throw new RelayError(
      'INSUFFICIENT_RELAYER_GAS',
      `the chain's gas price (base fee ${fees.baseFeePerGas} wei) is over this relayer's cap of ${cap} wei (RELAYER_MAX_FEE_PER_GAS_WEI); it takes orders again when the price falls; retry later or try another relayer`,
    )
  }
  return fees
}
