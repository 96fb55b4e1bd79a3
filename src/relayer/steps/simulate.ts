import { type Hex, size } from 'viem'
import { type DecodedRevert, decodeRevert, errorAbis, extractRevertData, isRevertError } from '../../chain/index.ts'
import type { Order, RelayRequest, Revert } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'
import { isTransportError } from '../rpcErrors.ts'
import { cannotPay } from '../rpcErrors.ts'
import type { Fees } from '../simulation/index.ts'
import { whyAuthorizationUsed } from './findSettlement.ts'
import { describeExpectedPayment, expectedPayment } from './expectedPayment.ts'
import { isUsedReason, usedAuthorizationError } from './settledAnswers.ts'

/** A call that passed simulation: its calldata, the gas limit its tx carries, and the execution gas it took (undefined when the node could not tell). */
export type SimulatedOrder = { data: Hex; gas: bigint; executionGasUsed: bigint | undefined }

/**
 * Step 5: one `eth_call` of `broker(...)` against the `pending` block (the state the
 * transaction will meet, with the relayer's own txs still in the pool applied), from
 * the relayer's own address (under load, several orders share one call, each still
 * simulated alone: see simulation/pendingSimulator.ts), with the gas limit and fee fields the transaction will
 * carry, so an order that would revert is refused without spending gas and an order
 * that passes is broadcast exactly as simulated (a key that cannot pay gas × fee is
 * found here too). The limit comes from the per-(adapter, payToken) cache; an order
 * that does not fit it (large `params` pay more calldata gas, and since Prague at
 * least the calldata floor) gets its own `eth_estimateGas` and is simulated again at
 * that limit, never broadcast with a limit the node would refuse to mine. The revert
 * is decoded against every ABI the call can reach (broker, adapters, token, OpenZeppelin).
 * A call that passes says the gas its execution took, which the economics price
 * (steps/checkPaysForItself.ts).
 * @throws RelayError WOULD_REVERT, AUTH_EXPIRED (token says expired), INSUFFICIENT_RELAYER_GAS, UPSTREAM_RPC
 */
export async function simulate(context: RelayerContext, request: RelayRequest, orderHash: Hex, data: Hex, fees: Fees): Promise<SimulatedOrder> {
  const { config, submitter, gasLimits } = context
  const call = { account: submitter.address, to: config.broker, data }
  const adapter = request.order.adapter as Hex
  // The fee fields the tx will carry, without the base fee the economics read beside them.
  const txFees = { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }

  const key = { adapter, payToken: request.order.payToken as Hex }
  const cached = await orRevert(context, request, orderHash, 'estimating gas', () => gasLimits.get(key, call))
  const first = await context.simulator.call(data, cached, txFees)
  if (first.passed) return { data, gas: cached, executionGasUsed: first.gasUsed }
  if (isTransportError(first.error)) throw upstream('during simulation', first.error)
  if (cannotPay(first.error)) throw cannotPayError(first.error)
  const revert = extractRevertData(first.error)
  if (revert && size(revert) >= 4) throw await revertToRelayError(context, decodeRevert(revert, errorAbis), orderHash, request.order)

  // Out of gas, an empty revert, or a limit under the calldata cost: find this order's own limit.
  const own = await orRevert(context, request, orderHash, 'estimating gas', () => gasLimits.estimate(call))
  const second = await context.simulator.callAlone(data, own, txFees)
  if (second.passed) return { data, gas: own, executionGasUsed: second.gasUsed }
  if (cannotPay(second.error)) throw cannotPayError(second.error)
  if (isRevertError(second.error)) throw await revertToRelayError(context, decodeRevert(extractRevertData(second.error), errorAbis), orderHash, request.order)
  throw upstream('during simulation', second.error)
}

const cannotPayError = (cause: unknown) =>
  new RelayError('INSUFFICIENT_RELAYER_GAS', 'relayer gas account cannot pay for gas; try another relayer or run your own', { cause })

// A gas estimate that reverts is a simulation that reverts; any other failure is the RPC's.
async function orRevert(context: RelayerContext, request: RelayRequest, orderHash: Hex, doing: string, estimate: () => Promise<bigint>): Promise<bigint> {
  try {
    return await estimate()
  } catch (error) {
    if (isRevertError(error)) throw await revertToRelayError(context, decodeRevert(extractRevertData(error), errorAbis), orderHash, request.order)
    throw upstream(`while ${doing}`, error)
  }
}

const upstream = (when: string, cause: unknown) => new RelayError('UPSTREAM_RPC', `the relayer's RPC failed ${when}; retry or try another relayer`, { cause })

/** A token's "the window has passed" revert: the mock's `authorization expired`, Circle's `FiatTokenV2: authorization is expired`. */
export const isExpiredReason = (reason: string) => /authorization (is )?expired/i.test(reason)

/**
 * Maps a decoded revert to the code a client acts on. "Authorization used" is asked of
 * the chain first (settledAnswers.ts): a settled order gets the replay answer naming
 * its tx, a cancelled one is told so, and one neither visible yet is not told to sign again.
 * `WrongPayment` (with `order`) adds what the adapter asks to be paid. A decoded revert
 * (not a bare reason) also travels as the body's `revert`.
 */
export async function revertToRelayError(context: RelayerContext, decoded: DecodedRevert | string, orderHash: Hex, order?: Pick<Order, 'adapter' | 'params'>): Promise<RelayError> {
  const reason = typeof decoded === 'string' ? decoded : decoded.text
  const revert = typeof decoded === 'string' ? undefined : wireRevert(decoded)
  if (isExpiredReason(reason)) {
    return new RelayError('AUTH_EXPIRED', `would revert: ${reason}; re-sign with a fresh window`, { revert })
  }
  if (isUsedReason(reason)) return usedAuthorizationError(await whyAuthorizationUsed(context, orderHash), reason, orderHash)
  // What was paid is in the revert; what to pay is the adapter's to say.
  if (order && /^WrongPayment\(/.test(reason)) return new RelayError('WOULD_REVERT', `would revert: ${reason}; ${describeExpectedPayment(await expectedPayment(context, order))}`, { revert })
  return new RelayError('WOULD_REVERT', `would revert: ${reason}`, { revert })
}

/** The body's `revert`: the decoded error without its readable line (that is the message). */
function wireRevert({ name, args, contract, selector, data }: DecodedRevert): Revert {
  return { ...(contract ? { contract } : {}), name, args, ...(selector ? { selector } : {}), ...(data ? { data } : {}) }
}
