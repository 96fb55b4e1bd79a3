import type { Economics } from './createEconomics.ts'
import type { FeeQuote } from './orderCost.ts'

/**
 * Why new orders are refused for money right now, for `GET /ready`: the hour's spending so
 * near its cap that an order like the last one would pass it, or the chain's base fee over
 * the fee cap; undefined when neither.
 */
export function moneyNotReady(economics: Pick<Economics, 'config' | 'ledger'>, fees: FeeQuote | undefined): string | undefined {
  const { maxSpendWeiPerHour, maxFeePerGasWei } = economics.config
  if (maxSpendWeiPerHour !== undefined) {
    const totals = economics.ledger.totals()
    const next = economics.ledger.lastWorstWei
    if (totals.spentWei + totals.reservedWei + next > maxSpendWeiPerHour) {
      return `the gas key spent ${totals.spentWei} wei in the last hour and pending txs hold ${totals.reservedWei} wei; an order like the last (up to ${next} wei) would pass its cap of ${maxSpendWeiPerHour} wei (RELAYER_MAX_SPEND_WEI_PER_HOUR): new orders are refused until the spending falls`
    }
  }
  if (maxFeePerGasWei !== undefined && fees && fees.baseFeePerGas > maxFeePerGasWei) {
    return `the chain's base fee (${fees.baseFeePerGas} wei) is over this relayer's cap of ${maxFeePerGasWei} wei (RELAYER_MAX_FEE_PER_GAS_WEI): new orders are refused until it falls`
  }
  return undefined
}
