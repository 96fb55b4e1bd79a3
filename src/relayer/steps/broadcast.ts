import type { Hex, TransactionReceipt } from 'viem'
import { decodeRevert, errorAbis, extractRevertData, isRevertError } from '../../chain/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'
import type { SimulatedOrder } from './simulate.ts'

/**
 * Step 6: broadcast from the gas key and wait for the receipt. A transaction that
 * reverts after broadcast (another relayer was first, or state moved) is
 * WOULD_REVERT naming the txHash.
 * @throws RelayError WOULD_REVERT, UPSTREAM_RPC, INSUFFICIENT_RELAYER_GAS
 */
export async function broadcast(context: RelayerContext, simulated: SimulatedOrder, adapter: Hex): Promise<TransactionReceipt> {
  const { submitter, config } = context
  const txHash = await submitter.send({ to: config.broker, data: simulated.data, gas: simulated.gas })
  const receipt = await submitter.waitForReceipt(txHash)
  if (receipt.status === 'success') return receipt
  if (receipt.gasUsed >= simulated.gas) context.gasLimits.bump(adapter, receipt.gasUsed)
  const reason = await replayReason(context, simulated, receipt)
  throw new RelayError('WOULD_REVERT', `reverted on chain after broadcast in tx ${txHash}${reason ? `: ${reason}` : ''} (another relayer may have settled it first)`)
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
