import type { Address, Hex } from 'viem'
import type { RelaySuccess } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'
import { decodeSettlement } from './decodeSettlement.ts'
import type { Settlement } from '../settlementFinder.ts'
import { authorizationUsed, type UsedAuthorization, whyAuthorizationUsed } from './findSettlement.ts'

/**
 * The pointer every 502 that leaves an order's fate open ends with: its tx may still
 * settle, or be replaced by one with a higher fee (the nonce keeper does), so the
 * client follows the status route, which names the current tx (the client library
 * does, then sends the request again).
 */
export const followStatus = (orderHash: Hex) =>
  `follow GET /broker/${orderHash.toLowerCase()} until it says settled or reverted (sending the same request again is safe: an order is never sent twice)`

/** A token's "this authorization is spent" revert: the mock's `authorization used`, Circle's `FiatTokenV2: authorization is used or canceled`. */
export const isUsedReason = (reason: string) => /authorization (is )?used/i.test(reason)

/**
 * The replay answer (SPEC.md 7.3, `authorization used`), worded the same whichever
 * relayer, replica or path finds the settlement: it names the tx that settled the
 * order, so a client that lost its answer recovers it, and it never invites paying
 * twice for an order that settled.
 */
export function replayError(txHash: Hex): RelayError {
  return new RelayError('WOULD_REVERT', `would revert: authorization used (already settled in tx ${txHash}); build a new order with a fresh nonce`)
}

/** The RelaySuccess of an order settled in `txHash`, decoded from that tx's receipt. */
export async function settledSuccess(context: Pick<RelayerContext, 'client' | 'config'>, txHash: Hex, adapter: Address, orderHash: Hex): Promise<RelaySuccess> {
  let receipt
  try {
    receipt = await context.client.getTransactionReceipt({ hash: txHash })
  } catch (error) {
    throw new RelayError('UPSTREAM_RPC', `settled in tx ${txHash}, but the relayer's RPC failed while reading its receipt; retry`, { cause: error, txHash })
  }
  return decodeSettlement(receipt, context.config.broker, adapter, orderHash)
}

/**
 * How an order that settled (on any relayer or replica) is answered: 200 with the
 * settling tx to a request that is owed the outcome (`owed`: it waited for the order,
 * or its own tx lost the race to that one), else the replay answer naming that tx.
 * @throws RelayError WOULD_REVERT (replay), UPSTREAM_RPC (the receipt could not be read)
 */
export async function answerSettled(context: Pick<RelayerContext, 'client' | 'config'>, settlement: Settlement, adapter: Address, orderHash: Hex, owed: boolean): Promise<RelaySuccess> {
  if (!owed) throw replayError(settlement.txHash)
  return settledSuccess(context, settlement.txHash, adapter, orderHash)
}

/**
 * The answer to a token's "authorization used" (`reason` as decoded, `where` what was
 * refused: "would revert" for a simulation, "reverted on chain after broadcast in tx …"
 * for a mined tx), once the chain says why: settled, the replay answer naming the
 * settling tx; cancelled by the consumer, WOULD_REVERT saying so (only then is a new
 * order the fix); neither visible yet, UPSTREAM_RPC pointing at `GET /broker/{orderHash}` (`followStatus`),
 * never "build a new order" for an order that may have settled.
 */
export function usedAuthorizationError(why: UsedAuthorization, reason: string, orderHash: Hex, where = 'would revert', txHash?: Hex): RelayError {
  const options = txHash ? { txHash } : undefined
  switch (why.kind) {
    case 'settled':
      return replayError(why.settlement.txHash)
    case 'cancelled':
      return new RelayError('WOULD_REVERT', `${where}: ${reason} (the consumer cancelled this authorization in tx ${why.txHash}; nothing was settled); build a new order with a fresh nonce`, options)
    case 'unknown':
      return new RelayError(
        'UPSTREAM_RPC',
        `${where}: ${reason}, but the relayer's node shows neither a settlement of this order nor a cancellation yet; do not sign it again: ${followStatus(orderHash)}`,
        options,
      )
  }
}

/**
 * An authorization window that has passed (AUTH_EXPIRED, "re-sign") is the answer only
 * for an order that did not settle within it: one settled at another relayer, or by a
 * replica whose outcome is gone, would be signed again and paid twice. So the token is
 * asked first: used and settled, the settlement (200 when `owed`, else the replay answer
 * naming its tx); used otherwise, as `usedAuthorizationError` says; not used, `expired`
 * stands. A read that fails is no answer either way: UPSTREAM_RPC, retry.
 * @throws RelayError `expired`, WOULD_REVERT (settled: the replay answer; cancelled), UPSTREAM_RPC
 */
export async function answerExpired(
  context: RelayerContext,
  order: { consumer: string; payToken: string; adapter: string },
  orderHash: Hex,
  owed: boolean,
  expired: RelayError,
): Promise<RelaySuccess> {
  const used = await authorizationUsed(context, order.consumer as Address, order.payToken as Address, orderHash)
  if (used === undefined) {
    throw new RelayError('UPSTREAM_RPC', "the authorization window has passed, and the relayer's RPC failed while reading whether this order settled before it; do not sign it again yet: retry or try another relayer", { cause: expired })
  }
  if (!used) throw expired
  const why = await whyAuthorizationUsed(context, orderHash)
  if (why.kind === 'settled') return answerSettled(context, why.settlement, order.adapter as Address, orderHash, owed)
  throw usedAuthorizationError(why, 'authorization used', orderHash)
}

/**
 * While a request waits for an order another request or replica holds: the chain's
 * word on it, in one `eth_call` (the token's `authorizationState`) and, only once the
 * token says used, the logs. Settled: the RelaySuccess of the settling tx (the waiting
 * client is owed it). Cancelled: WOULD_REVERT saying so. Not used, or not known yet:
 * undefined, and the request keeps waiting.
 * @throws RelayError WOULD_REVERT (cancelled), UPSTREAM_RPC (the settling receipt could not be read)
 */
export async function settledWhileWaiting(context: RelayerContext, order: { consumer: string; payToken: string; adapter: string }, orderHash: Hex): Promise<RelaySuccess | undefined> {
  const used = await authorizationUsed(context, order.consumer as Address, order.payToken as Address, orderHash)
  if (!used) return undefined
  const why = await whyAuthorizationUsed(context, orderHash)
  if (why.kind === 'settled') return answerSettled(context, why.settlement, order.adapter as Address, orderHash, true)
  if (why.kind === 'cancelled') throw usedAuthorizationError(why, 'authorization used', orderHash)
  return undefined
}
