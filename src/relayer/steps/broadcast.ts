import type { Hex } from 'viem'
import { decodeRevert, errorAbis, extractRevertData, isRevertError } from '../../chain/index.ts'
import type { RelayRequest, RelaySuccess } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'
import type { JournalSlot } from '../journal/index.ts'
import type { MinedReceipt } from '../submitter/index.ts'
import { answerSlot } from './answerSlot.ts'
import { decodeSettlement } from './decodeSettlement.ts'
import type { SimulatedOrder } from './simulate.ts'

/**
 * Step 6: hand the simulated call to the submitter (journaled before it is
 * broadcast) and wait for its outcome from the receipt watcher. Mined and
 * successful: the RelaySuccess. Reverted (another relayer was first, or state
 * moved): WOULD_REVERT naming the tx. No receipt in time: UPSTREAM_RPC naming the
 * tx, which stays in the journal, so a retry waits for it instead of broadcasting.
 * @throws RelayError WOULD_REVERT, UPSTREAM_RPC, INSUFFICIENT_RELAYER_GAS
 */
export async function broadcast(
  context: RelayerContext,
  simulated: SimulatedOrder,
  request: RelayRequest,
  orderHash: Hex,
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
  })
  if (!unanswered) onBroadcast?.(hash)
  const slot = await submitter.outcome(nonce, config.receiptTimeoutMs)
  if (unanswered && slot?.status === 'pending') {
    context.journal.answered(nonce, 'UPSTREAM_RPC')
    throw new RelayError('UPSTREAM_RPC', `broadcast failed at the relayer's RPC (tx ${hash} may or may not have reached the node); retry or try another relayer`, { txHash: hash })
  }
  return answerSlot(context, slot!, { fresh: true, shared: false })
}

/**
 * What a mined order tx means, stored in the journal by the receipt watcher: the
 * RelaySuccess, or for a revert its message (the reason replayed at its block). A
 * revert that no other tx's settlement explains puts the consumer in a cool-down
 * (RELAYER_REVERT_COOLDOWN_MS): its orders passed simulation and failed on chain,
 * and the key must not pay for that again and again.
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
  const { revertCooldownMs } = context.config
  if (!other && slot.consumer && revertCooldownMs > 0) {
    const until = Date.now() + revertCooldownMs
    context.journal.setCooldown({ consumer: slot.consumer, until, txHash: receipt.transactionHash })
    context.logger.warn(
      `consumer ${slot.consumer}: order ${slot.orderHash} passed simulation and reverted on chain in tx ${receipt.transactionHash}; its orders are refused until ${new Date(until).toISOString()} (RELAYER_REVERT_COOLDOWN_MS)`,
    )
  }
  return JSON.stringify({
    message: `reverted on chain after broadcast in tx ${receipt.transactionHash}${reason ? `: ${reason}` : ''} (another relayer may have settled it first)`,
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

/** Why a journaled call would revert now (its nonce is then filled), or undefined. */
export async function wouldRevertNow(context: RelayerContext, slot: JournalSlot): Promise<string | undefined> {
  try {
    await context.client.call({ account: context.submitter.address, to: slot.to, data: slot.data, gas: slot.gas })
    return undefined
  } catch (error) {
    return isRevertError(error) ? decodeRevert(extractRevertData(error), errorAbis).text : undefined
  }
}
