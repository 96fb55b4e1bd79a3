import type { Address, Hex, TransactionReceipt } from 'viem'
import type { RelayRequest, RelaySuccess } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'
import { parseOutcome, type SharedOutcome } from '../replicas/index.ts'
import { decodeSettlement } from './decodeSettlement.ts'
import { authorizationUsed, findSettled, whyAuthorizationUsed } from './findSettlement.ts'
import { answerSettled, followStatus, replayError, settledSuccess } from './settledAnswers.ts'

/**
 * Relayer replicas (RELAYER_REDIS_URL): this replica's journal knows nothing of the
 * order (or only a filled or foreign slot), but another replica may hold it.
 * - The shared state must be whole and this order's claim held in Redis, else the
 *   order is not taken (UPSTREAM_RPC "the shared state … is unavailable"), unless the
 *   chain already says it settled: then it is answered as below.
 * Then, from what the replica that broadcast it published (read with the claim, in the same call):
 * - settled: 200 with the same txHash (the RelaySuccess decoded from its receipt) to
 *   a request that waited for it (`shared`); a later replay is the replay answer
 *   naming it, as the journal answers one;
 * - reverted: unless another tx settled the order (then that settlement, as above),
 *   the code and message that replica answered;
 * - pending (that replica's client got UPSTREAM_RPC, not its 200): the tx is looked up
 *   once more; mined, it is answered like its outcome, a success with a 200 (then
 *   published as settled, so the next replay is the replay answer); still without a
 *   receipt, UPSTREAM_RPC naming it.
 * Nothing published and the request waited for a claim that was given up (its holder
 * died): the Broker's logs are asked, and a settlement found is answered 200.
 * Undefined otherwise: the order goes through the pipeline.
 * @throws RelayError UPSTREAM_RPC, WOULD_REVERT (or the code the other replica answered)
 */
export async function answerFromReplicas(context: RelayerContext, request: RelayRequest, orderHash: Hex, shared: boolean): Promise<RelaySuccess | undefined> {
  if (!context.outcomes) return undefined
  const adapter = request.order.adapter as Address
  const refusal = context.replicas?.refusal(orderHash)
  if (refusal) {
    // Not taken as new; but an order the chain says settled is answered all the same.
    if (await authorizationUsed(context, request.order.consumer as Address, request.order.payToken as Address, orderHash)) {
      const why = await whyAuthorizationUsed(context, orderHash)
      if (why.kind === 'settled') return answerSettled(context, why.settlement, adapter, orderHash, shared)
    }
    throw refusal
  }
  // Read in the same call as the claim (redisClaims.ts); asked apart only for a claim not held in Redis.
  const atClaim = context.replicas?.claims.outcomeAtClaim(orderHash)
  const outcome = atClaim === undefined ? await context.outcomes.read(orderHash) : parseOutcome(atClaim)
  if (!outcome) {
    if (!shared) return undefined
    const settled = await findSettled(context, orderHash)
    return settled ? answerSettled(context, settled, adapter, orderHash, true) : undefined
  }
  const txHash = outcome.txHash as Hex
  let receipt: TransactionReceipt | undefined
  let status = outcome.status
  if (status === 'pending') {
    receipt = await context.client.getTransactionReceipt({ hash: txHash }).catch(() => undefined)
    if (!receipt) {
      throw new RelayError('UPSTREAM_RPC', `broadcast by another relayer replica as tx ${txHash}, still without a receipt; it may still settle, in that tx or one replacing it: ${followStatus(orderHash)}`, { txHash })
    }
    status = receipt.status === 'success' ? 'settled' : 'reverted'
  }
  if (status === 'reverted') {
    // That tx lost to another that settled the order: the settlement is the answer.
    const settled = await findSettled(context, orderHash)
    if (settled) return answerSettled(context, settled, adapter, orderHash, shared)
    if (outcome.status === 'reverted' && outcome.code && outcome.message) throw new RelayError(outcome.code, outcome.message, { txHash })
    throw new RelayError('WOULD_REVERT', `not broadcast again: this order's tx ${txHash} (sent by another relayer replica) reverted on chain; build a new order with a fresh nonce`, { txHash })
  }
  if (!shared && outcome.status === 'settled') throw replayError(txHash)
  const success = receipt ? decodeSettlement(receipt, context.config.broker, adapter, orderHash) : await settledSuccess(context, txHash, adapter, orderHash)
  if (outcome.status === 'pending') await context.outcomes.publish(orderHash, { status: 'settled', txHash, blockNumber: receipt!.blockNumber.toString() })
  return success
}

/**
 * What the holder of an order's claim publishes as it releases it: this replica's tx
 * for the order (from its journal) and the answer it gave when that was a failure.
 * Undefined when no tx was signed (a refusal before broadcast: another replica would
 * reach the same refusal itself).
 * @example
 * await replicas.claims.releaseWith(orderHash, outcomeToPublish(context, orderHash, failure))
 */
export function outcomeToPublish(context: Pick<RelayerContext, 'journal'>, orderHash: Hex, failure: RelayError | undefined): SharedOutcome | undefined {
  let slot
  try {
    slot = context.journal.byOrder(orderHash)
  } catch {
    return undefined
  }
  if (!slot || (slot.status !== 'pending' && slot.status !== 'settled' && slot.status !== 'reverted')) return undefined
  return {
    status: slot.status,
    txHash: slot.txHash,
    ...(slot.blockNumber === null ? {} : { blockNumber: slot.blockNumber.toString() }),
    ...(failure && failure.txHash === slot.txHash ? { code: failure.code, message: failure.message } : {}),
  }
}
