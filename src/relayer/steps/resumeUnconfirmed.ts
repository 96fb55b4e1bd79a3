import { formatTransactionReceipt, type Hex, type RpcTransactionReceipt } from 'viem'
import type { RelaySuccess } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'
import { confirmReceipt } from './broadcast.ts'
import { decodeSettlement } from './decodeSettlement.ts'

/**
 * Before an order is simulated and broadcast: if this orderHash was already
 * broadcast and its receipt never came (UPSTREAM_RPC), look at that tx instead of
 * sending the order again. Mined: its outcome (the same RelaySuccess and txHash, or
 * WOULD_REVERT). Still pending: UPSTREAM_RPC naming it again. Unknown to the node
 * (dropped from the pool): sent again as signed and waited for; only when that is
 * impossible (its nonce was used meanwhile) undefined, and the order goes through
 * the pipeline anew.
 * @throws RelayError UPSTREAM_RPC, WOULD_REVERT
 */
export async function resumeUnconfirmed(context: RelayerContext, orderHash: Hex, adapter: Hex): Promise<RelaySuccess | undefined> {
  const earlier = context.unconfirmed.get(orderHash)
  if (!earlier) return undefined
  const { txHash } = earlier
  let raw: RpcTransactionReceipt | null
  let known: unknown
  try {
    raw = (await context.client.request({ method: 'eth_getTransactionReceipt', params: [txHash] })) as RpcTransactionReceipt | null
    known = raw ? true : await context.client.request({ method: 'eth_getTransactionByHash', params: [txHash] })
  } catch (error) {
    throw new RelayError('UPSTREAM_RPC', `broadcast earlier as tx ${txHash}; the relayer's RPC failed while looking for its receipt; check the tx before retrying`, { cause: error })
  }
  if (!raw) {
    if (known) throw new RelayError('UPSTREAM_RPC', `broadcast earlier as tx ${txHash}, still without a receipt; check the tx before retrying`)
    // Dropped by the node: the same signed tx goes out again, so its nonce is not left as a gap.
    const revived = await context.submitter.revive(txHash)
    if (!revived) {
      context.logger.warn(`tx ${txHash} was dropped by the node; relaying its order again`)
      context.unconfirmed.delete(orderHash)
      return undefined
    }
    return settle(context, orderHash, adapter, revived)
  }
  context.unconfirmed.delete(orderHash)
  const receipt = await confirmReceipt(context, earlier, adapter, formatTransactionReceipt(raw))
  return decodeSettlement(receipt, context.config.broker, adapter, orderHash)
}

/** Waits for a revived tx like a fresh broadcast; still unconfirmed at the timeout, it stays remembered. */
async function settle(context: RelayerContext, orderHash: Hex, adapter: Hex, txHash: Hex): Promise<RelaySuccess> {
  const earlier = context.unconfirmed.get(orderHash)!
  let receipt
  try {
    receipt = await context.submitter.waitForReceipt(txHash)
  } catch (error) {
    const latest = error instanceof RelayError && error.txHash ? error.txHash : txHash
    context.unconfirmed.set(orderHash, { ...earlier, txHash: latest })
    throw error
  }
  context.unconfirmed.delete(orderHash)
  return decodeSettlement(await confirmReceipt(context, earlier, adapter, receipt), context.config.broker, adapter, orderHash)
}
