import type { Hex } from 'viem'
import { decodeBrokerCall, decodeRevert, errorAbis, extractRevertData, isRevertError } from '../../chain/index.ts'
import type { RelayRequest, RelaySuccess } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'
import { blameRevert, type OrderTerms } from '../economics/index.ts'
import type { JournalSlot } from '../journal/index.ts'
import { BatchedRevertError, type Fees } from '../simulation/index.ts'
import type { MinedReceipt } from '../submitter/index.ts'
import { answerSlot } from './answerSlot.ts'
import { followStatus } from './settledAnswers.ts'
import { decodeSettlement } from './decodeSettlement.ts'
import type { SimulatedOrder } from './simulate.ts'

/**
 * Step 6: hand the simulated call to the submitter (judged again at the fees it is signed
 * with, and journaled before it is broadcast) and wait for its outcome from the receipt
 * watcher. Mined and
 * successful: the RelaySuccess. Reverted (another relayer was first, or state
 * moved): WOULD_REVERT naming the tx. No receipt in time: UPSTREAM_RPC naming the
 * tx, which stays in the journal, so a retry waits for it instead of broadcasting.
 * @throws RelayError WOULD_REVERT, UPSTREAM_RPC, INSUFFICIENT_RELAYER_GAS, FEE_BELOW_FLOOR (does not pay for itself at the fees it would be signed with)
 */
export async function broadcast(
  context: RelayerContext,
  simulated: SimulatedOrder,
  request: RelayRequest,
  orderHash: Hex,
  terms: OrderTerms,
  /** Told the txHash once the node accepted the tx (not when its answer was lost). */
  onBroadcast?: (txHash: Hex) => void,
): Promise<RelaySuccess> {
  const { submitter, config } = context
  const { nonce, hash, unanswered } = await submitter.send({
    to: config.broker,
    data: simulated.data,
    gas: simulated.gas,
    orderHash,
    consumer: request.order.consumer as Hex,
    adapter: request.order.adapter as Hex,
    payToken: request.order.payToken as Hex,
    terms,
    validBefore: BigInt(request.validBefore),
  })
  if (!unanswered) onBroadcast?.(hash)
  const slot = await submitter.outcome(nonce, config.receiptTimeoutMs)
  if (unanswered && slot?.status === 'pending') {
    context.journal.answered(nonce, 'UPSTREAM_RPC')
    throw new RelayError('UPSTREAM_RPC', `broadcast failed at the relayer's RPC (tx ${hash} may or may not have reached the node): ${followStatus(orderHash)}`, { txHash: hash })
  }
  return answerSlot(context, slot!, { fresh: true, shared: false })
}

/**
 * What a mined order tx means, stored in the journal by the receipt watcher: the
 * RelaySuccess, or for a revert its message (the reason replayed at its block). A
 * revert that no other tx's settlement explains is kept (journal `reverts`): its
 * consumer cools down (RELAYER_REVERT_COOLDOWN_MS), and so does the adapter or the pay
 * token the revert came from (economics/blameRevert.ts) once it has
 * RELAYER_REVERT_COOLDOWN_MAX such reverts (steps/checkCooldown.ts): the key must not pay
 * for orders that pass simulation and fail on chain again and again.
 */
export async function describeOutcome(context: RelayerContext, slot: JournalSlot, receipt: MinedReceipt): Promise<string | undefined> {
  if (!slot.orderHash) return undefined
  const adapter = (slot.adapter ?? slot.to) as Hex
  if (receipt.status === 'success') {
    try {
      return JSON.stringify(decodeSettlement(receipt, context.config.broker, adapter, slot.orderHash))
    } catch (error) {
      return JSON.stringify({ message: (error as Error).message })
    }
  }
  if (receipt.gasUsed >= slot.gas) context.gasLimits.bump(adapter, receipt.gasUsed)
  const reason = await replayReason(context, slot, receipt)
  const other = await context.settlements.find(slot.orderHash).catch(() => undefined)
  // Settled by a tx from this very key that this journal did not sign: another process signs with the key.
  if (other?.relayer && other.relayer.toLowerCase() === context.submitter.address.toLowerCase() && !context.journal.tx(other.txHash)) {
    context.keyGuard.report(`order ${slot.orderHash} was settled in tx ${other.txHash}, sent from this key but not by this relayer`)
  }
  const { revertCooldownMs, revertCooldownMax } = context.config
  if (!other && slot.consumer && revertCooldownMs > 0) {
    const at = Date.now()
    // The adapter or the pay token is counted only when the revert came from it.
    const blame = blameRevert(reason)
    context.journal.addRevert({ at, consumer: slot.consumer, adapter: blame.adapter ? slot.adapter : null, payToken: blame.payToken ? slot.payToken : null, txHash: receipt.transactionHash })
    context.logger.warn(
      `consumer ${slot.consumer}: order ${slot.orderHash} passed simulation and reverted on chain in tx ${receipt.transactionHash}; its orders are refused until ${new Date(at + revertCooldownMs).toISOString()} (RELAYER_REVERT_COOLDOWN_MS)`,
    )
    for (const [by, address, what] of [['adapter', blame.adapter ? slot.adapter : null, 'adapter'], ['payToken', blame.payToken ? slot.payToken : null, 'pay token']] as const) {
      if (!address || context.journal.reverts(by, address, at - revertCooldownMs, revertCooldownMax).length < revertCooldownMax) continue
      context.logger.warn(
        `${what} ${address}: ${revertCooldownMax} orders through it passed simulation and reverted on chain within ${revertCooldownMs / 1000} s; its orders are refused until ${new Date(at + revertCooldownMs).toISOString()} (RELAYER_REVERT_COOLDOWN_MAX)`,
      )
    }
  }
  return JSON.stringify({
    message: `reverted on chain after broadcast in tx ${receipt.transactionHash}${reason ? `: ${reason}` : ''}${other ? ` (the order was settled in tx ${other.txHash})` : ''}`,
    ...(reason ? { reason } : {}),
  })
}

// Re-run the call at the block it reverted in to name the reason; best effort.
async function replayReason(context: RelayerContext, slot: JournalSlot, receipt: MinedReceipt & { status: 'reverted' }): Promise<string | undefined> {
  try {
    await context.client.call({ account: context.submitter.address, to: slot.to, data: slot.data, blockNumber: receipt.blockNumber })
    return receipt.gasUsed >= slot.gas ? 'out of gas' : undefined
  } catch (error) {
    return isRevertError(error) ? decodeRevert(extractRevertData(error), errorAbis).text : undefined
  }
}

/**
 * Whether a pending order's tx may be sent again at `fees` (the nonce keeper asks before a
 * resend or a replacement): simulated again at the latest block (the pending one would hold
 * the tx itself), then judged at those fees (economics/judgeOrder.ts, as a pending order:
 * whether it still pays for itself). `reverts` or `loses` says why its nonce should be
 * filled instead; undefined: send it (also when the node cannot be asked: a failed read is
 * no reason to give an order up).
 */
export async function recheckOrder(context: RelayerContext, slot: JournalSlot, fees: Fees): Promise<{ reverts: string } | { loses: string } | undefined> {
  const simulation = await context.simulator.callLatest(slot.data, slot.gas, fees)
  if (!simulation.passed) {
    if (!isRevertError(simulation.error) && !(simulation.error instanceof BatchedRevertError)) return undefined
    const data = extractRevertData(simulation.error)
    if (!data || data === '0x') return undefined
    return { reverts: decodeRevert(data, errorAbis).text }
  }
  const order = decodeBrokerCall(slot.data)
  if (!order) return undefined
  let l1Gas: bigint
  let baseFeePerGas: bigint
  try {
    l1Gas = await context.economics.l1.gasFor(context.config.broker, slot.data)
    baseFeePerGas = (await context.submitter.currentFees()).baseFeePerGas
  } catch {
    return undefined
  }
  const terms: OrderTerms = { payToken: order.payToken, amount: order.amount, feeBps: order.feeBps, data: slot.data, gasLimit: slot.gas, executionGasUsed: simulation.gasUsed, l1Gas }
  const unpricedAdmitted = slot.feeAmount !== null && slot.feeValueWei === null
  const verdict = context.economics.judge(terms, { ...fees, baseFeePerGas }, { admitting: false, unpricedAdmitted })
  return verdict instanceof RelayError ? { loses: verdict.message } : undefined
}
