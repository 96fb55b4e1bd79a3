import type { Hex, TransactionReceipt } from 'viem'
import type { RelayRequest, RelaySuccess } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'
import type { SharedOutcome, SharedOutcomes } from '../replicas/index.ts'
import { decodeSettlement } from './decodeSettlement.ts'

/**
 * Relayer replicas (RELAYER_REDIS_URL): this replica's journal knows nothing of the
 * order, but another replica may have broadcast it and published where it went.
 * - settled: 200 with the same txHash (the RelaySuccess decoded from its receipt) to
 *   a request that waited for it (`shared`); a later replay is WOULD_REVERT
 *   "authorization used" naming it, as the journal answers one;
 * - reverted: the code and message that replica answered;
 * - pending (that replica's client got UPSTREAM_RPC, not its 200): the tx is looked up
 *   once more; mined, it is answered like its outcome, a success with a 200 (then
 *   published as settled, so the next replay is the replay answer); still without a
 *   receipt, UPSTREAM_RPC naming it.
 * Undefined when no replica published anything: the order goes through the pipeline.
 * @throws RelayError UPSTREAM_RPC, WOULD_REVERT (or the code the other replica answered)
 */
export async function answerFromReplicas(context: RelayerContext, request: RelayRequest, orderHash: Hex, shared: boolean): Promise<RelaySuccess | undefined> {
  if (!context.outcomes) return undefined
  const outcome = await context.outcomes.read(orderHash)
  if (!outcome) return undefined
  const txHash = outcome.txHash as Hex
  let receipt: TransactionReceipt | undefined
  let status = outcome.status
  if (status === 'pending') {
    receipt = await context.client.getTransactionReceipt({ hash: txHash }).catch(() => undefined)
    if (!receipt) {
      throw new RelayError('UPSTREAM_RPC', `broadcast by another relayer replica as tx ${txHash}, still without a receipt; check the tx before retrying`, { txHash })
    }
    status = receipt.status === 'success' ? 'settled' : 'reverted'
  }
  if (status === 'reverted') {
    if (outcome.status === 'reverted' && outcome.code && outcome.message) throw new RelayError(outcome.code, outcome.message, { txHash })
    throw new RelayError('WOULD_REVERT', `not broadcast again: this order's tx ${txHash} (sent by another relayer replica) reverted on chain; build a new order with a fresh nonce`, { txHash })
  }
  if (!shared && outcome.status === 'settled') {
    throw new RelayError('WOULD_REVERT', `would revert: authorization used (already settled in tx ${txHash}); build a new order with a fresh nonce`)
  }
  try {
    receipt ??= await context.client.getTransactionReceipt({ hash: txHash })
  } catch (error) {
    throw new RelayError('UPSTREAM_RPC', `settled in tx ${txHash}, but the relayer's RPC failed while reading its receipt; retry`, { cause: error, txHash })
  }
  const success = decodeSettlement(receipt, context.config.broker, request.order.adapter as Hex, orderHash)
  if (outcome.status === 'pending') await context.outcomes.publish(orderHash, { status: 'settled', txHash, blockNumber: receipt.blockNumber.toString() })
  return success
}

/**
 * The holder of an order's claim, before releasing it: publishes this replica's tx
 * for the order (from its journal) and the answer it gave when that was a failure.
 * Nothing when no tx was signed (a refusal before broadcast: another replica would
 * reach the same refusal itself).
 */
export async function publishOutcome(context: RelayerContext, outcomes: SharedOutcomes, orderHash: Hex, failure: RelayError | undefined): Promise<void> {
  let slot
  try {
    slot = context.journal.byOrder(orderHash)
  } catch {
    return
  }
  if (!slot || (slot.status !== 'pending' && slot.status !== 'settled' && slot.status !== 'reverted')) return
  const outcome: SharedOutcome = {
    status: slot.status,
    txHash: slot.txHash,
    ...(slot.blockNumber === null ? {} : { blockNumber: slot.blockNumber.toString() }),
    ...(failure && failure.txHash === slot.txHash ? { code: failure.code, message: failure.message } : {}),
  }
  await outcomes.publish(orderHash, outcome)
}
