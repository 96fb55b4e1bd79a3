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
 * (dropped from the pool): undefined, and the order goes through the pipeline anew.
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
    context.logger.warn(`tx ${txHash} was dropped by the node; relaying its order again`)
    context.unconfirmed.delete(orderHash)
    return undefined
  }
  context.unconfirmed.delete(orderHash)
  const receipt = await confirmReceipt(context, earlier, adapter, formatTransactionReceipt(raw))
  return decodeSettlement(receipt, context.config.broker, adapter, orderHash)
}
