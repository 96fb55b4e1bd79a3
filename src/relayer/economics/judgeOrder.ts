import type { Address, Hex } from 'viem'
import { RelayError } from '../errors.ts'
import { type FeeQuote, type OrderCost, orderCost, worstCost } from './orderCost.ts'
import type { SpendLedger } from './spendLedger.ts'
import type { TokenValues } from './tokenValues.ts'

/** The operator's limits on what the gas key spends (RELAYER_* variables, docs/economics.md). */
export type EconomicsLimits = {
  /** The fee's value must cover the expected gas cost plus this share of it (basis points). */
  minMarginBps: number
  /** Gas orders paid in unvalued tokens may spend per sliding hour; 0 refuses them. */
  unpricedGasBudgetWei: bigint
  /** Gas the key may spend per sliding hour, mined and pending together; undefined: no cap. */
  maxSpendWeiPerHour?: bigint
  /** No tx is signed over this fee cap; while the base fee is over it no tx could be mined under it. */
  maxFeePerGasWei?: bigint
}

/** An order as the economics see it: what it pays, and what its tx takes. */
export type OrderTerms = {
  payToken: Address
  amount: bigint
  feeBps: number
  /** The broker call the tx carries. */
  data: Hex
  gasLimit: bigint
  /** Execution gas the simulation measured; undefined when the node could not tell. */
  executionGasUsed: bigint | undefined
  /** L1 data gas (Arbitrum-family chains), else 0. */
  l1Gas: bigint
}

/** An order that pays for itself at given fees: what it costs, earns, and may cost at worst. */
export type Verdict = {
  cost: OrderCost
  /** The fee in base units of the pay token (amount × feeBps / 10000, as the Broker pays it). */
  feeAmount: bigint
  /** What the fee is worth in wei; undefined for a token this relayer cannot value (relayed within the unpriced budget). */
  feeValueWei: bigint | undefined
  /** The most the tx can cost: gas limit × fee cap. */
  worstWei: bigint
}

const basisPoints = 10_000n
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b

/**
 * How an order is judged: as a new order (`admitting`, the default: the hour's spending cap
 * and the unpriced budget apply, `alsoReservedWei` being what orders signed in the same batch
 * already hold), or as one already pending whose tx would be sent again or at higher fees
 * (only whether it still pays; `unpricedAdmitted`: it was taken within the unpriced budget).
 */
export type JudgeOptions = { admitting?: boolean; alsoReservedWei?: bigint; unpricedAdmitted?: boolean }

/**
 * Whether an order pays for itself at `fees` (docs/economics.md): the fee's value must be at
 * least the expected gas cost × (1 + margin); a token without a value is relayed only
 * within the unpriced budget; no new order may take the hour's spending past its cap.
 * Pure: it reads the token values and the ledger, and changes nothing.
 * @returns the Verdict, or the RelayError the order is refused with (FEE_BELOW_FLOOR, INSUFFICIENT_RELAYER_GAS)
 */
export function judgeOrder(
  input: { values: TokenValues; ledger: SpendLedger; limits: EconomicsLimits },
  terms: OrderTerms,
  fees: FeeQuote,
  options: JudgeOptions = {},
): Verdict | RelayError {
  const { values, ledger, limits } = input
  const admitting = options.admitting ?? true
  const alsoReservedWei = options.alsoReservedWei ?? 0n
  const cost = orderCost({ data: terms.data, executionGasUsed: terms.executionGasUsed, gasLimit: terms.gasLimit, l1Gas: terms.l1Gas, fees })
  const worstWei = worstCost(terms.gasLimit, fees.maxFeePerGas)
  const feeAmount = (terms.amount * BigInt(terms.feeBps)) / basisPoints
  const feeValueWei = values.worth(terms.payToken, feeAmount)
  if (admitting && limits.maxFeePerGasWei !== undefined && fees.baseFeePerGas > limits.maxFeePerGasWei) {
    return new RelayError(
      'INSUFFICIENT_RELAYER_GAS',
      `the chain's gas price (base fee ${fees.baseFeePerGas} wei) is over this relayer's cap of ${limits.maxFeePerGasWei} wei (RELAYER_MAX_FEE_PER_GAS_WEI); it takes orders again when the price falls; retry later or try another relayer`,
    )
  }
  const totals = ledger.totals()
  if (admitting && limits.maxSpendWeiPerHour !== undefined && totals.spentWei + totals.reservedWei + alsoReservedWei + worstWei > limits.maxSpendWeiPerHour) {
    return new RelayError(
      'INSUFFICIENT_RELAYER_GAS',
      `this relayer's gas spending cap is reached: ${totals.spentWei} wei spent in the last hour and ${totals.reservedWei + alsoReservedWei} wei held by pending txs, and this order may cost up to ${worstWei} wei, over RELAYER_MAX_SPEND_WEI_PER_HOUR (${limits.maxSpendWeiPerHour} wei); retry later or try another relayer`,
    )
  }
  const gasText = `${cost.gas} gas${cost.measured ? '' : ' (its gas limit: this node cannot tell the gas a simulation used)'}${cost.l1Gas > 0n ? ` + ${cost.l1Gas} gas of L1 data` : ''} at ${cost.price} wei`
  if (feeValueWei === undefined) {
    if (!admitting && options.unpricedAdmitted) return { cost, feeAmount, feeValueWei, worstWei }
    const left = limits.unpricedGasBudgetWei - totals.unpricedSpentWei - totals.unpricedReservedWei - alsoReservedWei
    if (admitting && limits.unpricedGasBudgetWei > 0n && worstWei <= left) return { cost, feeAmount, feeValueWei, worstWei }
    const why = values.unpricedWhy(terms.payToken) ?? 'it cannot be valued'
    return new RelayError(
      'FEE_BELOW_FLOOR',
      limits.unpricedGasBudgetWei > 0n
        ? `pay token ${values.describe(terms.payToken)} is not valued by this relayer (${why}) and its hourly budget for such orders is used up (RELAYER_UNPRICED_GAS_BUDGET_WEI ${limits.unpricedGasBudgetWei} wei; this order may cost up to ${worstWei} wei); retry later, pay in an accepted token (GET /info) or choose another relayer`
        : `pay token ${values.describe(terms.payToken)} is not accepted by this relayer (${why}); pay in an accepted token (GET /info) or choose another relayer`,
    )
  }
  const needWei = ceilDiv(cost.wei * (basisPoints + BigInt(limits.minMarginBps)), basisPoints)
  if (feeValueWei >= needWei) return { cost, feeAmount, feeValueWei, worstWei }
  const minFee = values.amountFor(terms.payToken, needWei)
  let pass = 'no fee of this token can pass'
  if (minFee !== undefined) {
    // The least feeBps whose fee (rounded down as the Broker rounds it) reaches minFee.
    const minBps = terms.amount === 0n ? undefined : ceilDiv(minFee * basisPoints, terms.amount)
    pass =
      minBps !== undefined && minBps <= basisPoints
        ? `a fee of at least ${minFee} (feeBps ${minBps} of this amount) would pass`
        : `a fee of at least ${minFee} would pass, more than this amount can carry (feeBps is at most 10000)`
  }
  const margin = limits.minMarginBps > 0 ? ` plus this relayer's margin of ${limits.minMarginBps} bps (RELAYER_MIN_MARGIN_BPS)` : ''
  return new RelayError(
    'FEE_BELOW_FLOOR',
    `the fee does not pay for the gas: ${feeAmount} of ${values.describe(terms.payToken)} (feeBps ${terms.feeBps} of amount ${terms.amount}) is worth ${feeValueWei} wei, and this order's tx costs about ${cost.wei} wei (${gasText})${margin}; ${pass}; raise feeBps or choose another relayer (GET /info)`,
  )
}
