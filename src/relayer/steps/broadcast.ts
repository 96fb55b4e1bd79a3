import type { Hex, TransactionReceipt } from 'viem'
import { decodeRevert, errorAbis, extractRevertData, isRevertError } from '../../chain/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'
import { isExpiredReason, type SimulatedOrder } from './simulate.ts'

/** Most unconfirmed broadcasts remembered (each is removed once its outcome is known). */
const unconfirmedMemory = 10_000

/**
 * Step 6: broadcast from the gas key and wait for the receipt. A transaction that
 * reverts after broadcast (another relayer was first, or state moved) is
 * WOULD_REVERT naming the txHash. A receipt that does not come in time is
 * UPSTREAM_RPC naming the txHash; so is a broadcast whose answer was lost. Either
 * way the tx is remembered as unconfirmed, so a retry of the same order looks at it
 * instead of broadcasting again.
 * @throws RelayError WOULD_REVERT, UPSTREAM_RPC, INSUFFICIENT_RELAYER_GAS
 */
export async function broadcast(context: RelayerContext, simulated: SimulatedOrder, adapter: Hex, orderHash: Hex): Promise<TransactionReceipt> {
  const { submitter, config } = context
  const remember = (txHash: Hex) => {
    if (context.unconfirmed.size >= unconfirmedMemory) context.unconfirmed.delete(context.unconfirmed.keys().next().value!)
    context.unconfirmed.set(orderHash, { txHash, data: simulated.data, gas: simulated.gas })
  }
  let txHash: Hex
  try {
    txHash = await submitter.send({ to: config.broker, data: simulated.data, gas: simulated.gas })
  } catch (error) {
    // The RPC failed after the tx was signed: it may have reached the node.
    if (error instanceof RelayError && error.code === 'UPSTREAM_RPC' && error.txHash) remember(error.txHash)
    throw error
  }
  let receipt: TransactionReceipt
  try {
    receipt = await submitter.waitForReceipt(txHash)
  } catch (error) {
    // The hash waited for last: a replacement's, if the tx had to be re-signed.
    remember(error instanceof RelayError && error.txHash ? error.txHash : txHash)
    throw error
  }
  return confirmReceipt(context, simulated, adapter, receipt)
}

/**
 * A mined receipt: returned when it succeeded, else WOULD_REVERT naming the tx and,
 * best effort, the reason (replayed at the block it reverted in).
 * @throws RelayError WOULD_REVERT
 */
export async function confirmReceipt(context: RelayerContext, simulated: SimulatedOrder, adapter: Hex, receipt: TransactionReceipt): Promise<TransactionReceipt> {
  if (receipt.status === 'success') return receipt
  if (receipt.gasUsed >= simulated.gas) context.gasLimits.bump(adapter, receipt.gasUsed)
  const reason = await replayReason(context, simulated, receipt)
  if (reason && isExpiredReason(reason)) {
    throw new RelayError('AUTH_EXPIRED', `reverted on chain after broadcast in tx ${receipt.transactionHash}: ${reason}; re-sign with a fresh window`)
  }
  throw new RelayError(
    'WOULD_REVERT',
    `reverted on chain after broadcast in tx ${receipt.transactionHash}${reason ? `: ${reason}` : ''} (another relayer may have settled it first)`,
  )
}

// Re-run the call at the block it reverted in to name the reason; best effort.
async function replayReason(context: RelayerContext, simulated: SimulatedOrder, receipt: TransactionReceipt): Promise<string | undefined> {
  try {
    await context.client.call({
      account: context.submitter.address,
      to: context.config.broker,
      data: simulated.data,
      blockNumber: receipt.blockNumber,
    })
    return receipt.gasUsed >= simulated.gas ? 'out of gas' : undefined
  } catch (error) {
    return isRevertError(error) ? decodeRevert(extractRevertData(error), errorAbis).text : undefined
  }
}
