import type { Address } from 'viem'
import type { RelayRequest } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'

/**
 * Step 3, with the fee floor: an order paid in a token this relayer cannot value is refused
 * before anything is spent on it (no simulation), naming the tokens it accepts, unless
 * the operator relays such tokens within a gas budget (RELAYER_UNPRICED_GAS_BUDGET_WEI,
 * checked after simulation: steps/checkPaysForItself.ts).
 * @returns a RelayError FEE_BELOW_FLOOR (returned, not thrown), or undefined.
 */
export function checkTokenAccepted(context: Pick<RelayerContext, 'economics'>, request: RelayRequest): RelayError | undefined {
  const status = context.economics.values.status(request.order.payToken as Address)
  // A failed read is the RPC's, not the token's: `ensureTokenValued` reads it again.
  if (status.priced || status.rpc || context.economics.config.unpricedGasBudgetWei > 0n) return undefined
  return notAccepted(context, request, status.why)
}

/**
 * Before simulation: a token whose value could not be read because the RPC failed is read
 * again; it is then valued, refused as above, or the RPC's failure is the answer.
 * @throws RelayError UPSTREAM_RPC, FEE_BELOW_FLOOR
 */
export async function ensureTokenValued(context: Pick<RelayerContext, 'economics'>, request: RelayRequest): Promise<void> {
  const status = await context.economics.values.ensure(request.order.payToken as Address)
  if (status.priced || context.economics.config.unpricedGasBudgetWei > 0n) return
  if (status.rpc) throw new RelayError('UPSTREAM_RPC', `the relayer's RPC failed while reading the value of pay token ${request.order.payToken}; retry or try another relayer`)
  throw notAccepted(context, request, status.why)
}

function notAccepted(context: Pick<RelayerContext, 'economics'>, request: RelayRequest, why: string): RelayError {
  const { values } = context.economics
  const accepted = values.accepted().filter((each) => each.priced)
  const list = accepted.length > 0 ? `it accepts ${accepted.map((each) => values.describe(each.token)).join(', ')}` : 'it accepts no pay token at the moment'
  return new RelayError('FEE_BELOW_FLOOR', `pay token ${request.order.payToken} is not accepted by this relayer (${why}); ${list}; pay in an accepted token or choose another relayer (GET /info)`)
}
