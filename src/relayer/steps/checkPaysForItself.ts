import type { Address } from 'viem'
import type { RelayRequest } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import type { FeeQuote, OrderTerms, Verdict } from '../economics/index.ts'
import { RelayError } from '../errors.ts'
import type { SimulatedOrder } from './simulate.ts'

/** The economics' view of a simulated order (what it pays, what its tx takes). */
export function termsOf(request: RelayRequest, simulated: SimulatedOrder, l1Gas: bigint): OrderTerms {
  return {
    payToken: request.order.payToken as Address,
    amount: BigInt(request.order.amount),
    feeBps: request.order.feeBps,
    data: simulated.data,
    gasLimit: simulated.gas,
    executionGasUsed: simulated.executionGasUsed,
    l1Gas,
  }
}

/**
 * After simulation, before anything is signed: the order must pay for itself
 * (docs/economics.md). The fee's value must cover the gas the simulation measured at the
 * price the tx will pay (plus the L1 data component and the operator's margin); a token
 * without a value passes only within the unpriced budget; the hour's spending must stay
 * under its cap. The same judgement is made again at the fees the tx is signed with.
 * @throws RelayError FEE_BELOW_FLOOR (the fee's worth, the cost and the fee that would pass), INSUFFICIENT_RELAYER_GAS (the spending cap)
 */
export async function checkPaysForItself(
  context: Pick<RelayerContext, 'economics' | 'submitter'>,
  request: RelayRequest,
  simulated: SimulatedOrder,
  fees: FeeQuote,
  l1Gas: bigint,
): Promise<{ terms: OrderTerms; verdict: Verdict }> {
  const terms = termsOf(request, simulated, l1Gas)
  let verdict = context.economics.judge(terms, fees)
  // Refused only at a price read now: the cached one may be seconds old, and prices fall too.
  if (verdict instanceof RelayError && verdict.code === 'FEE_BELOW_FLOOR') {
    const fresh = await context.submitter.freshFees().catch(() => undefined)
    if (fresh) verdict = context.economics.judge(terms, fresh)
  }
  if (verdict instanceof RelayError) throw verdict
  return { terms, verdict }
}
