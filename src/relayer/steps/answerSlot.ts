import type { Address } from 'viem'
import type { RelaySuccess } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'
import type { JournalSlot } from '../journal/index.ts'
import type { Settlement } from '../settlementFinder.ts'
import { whyAuthorizationUsed } from './findSettlement.ts'
import { answerSettled, followStatus, isUsedReason, replayError, settledSuccess, usedAuthorizationError } from './settledAnswers.ts'
import { isExpiredReason } from './simulate.ts'

/**
 * How the client who asked is answered about a slot of its order:
 * - `fresh`: it is the request that broadcast the tx;
 * - `shared`: it asked while the order's tx was in flight or pending, so it shares
 *   that tx's outcome.
 * A settled order answers 200 to those, and to a retry while no client has had its
 * 200 yet; after that a replay is WOULD_REVERT "authorization used" naming the tx
 * that settled it. A reverted or filled slot whose order was settled by another tx
 * (another relayer or replica won the race) is answered as that settlement: 200 naming
 * the settling tx to those owed an outcome, else the replay answer; an order that can
 * no longer settle (its own revert, a cancelled authorization) is WOULD_REVERT naming
 * its tx, never broadcast again; a filled slot whose order can still settle (the node
 * refused its tx, or it would not pay for its gas) is answered with the code its filler
 * stored (`filledAnswer`); and when the token says the authorization is used
 * but the chain shows neither a settlement nor a cancellation yet, UPSTREAM_RPC
 * pointing at `GET /broker/{orderHash}`. The code answered is written to the journal.
 * @throws RelayError for every outcome but a settlement answered 200
 */
export async function answerSlot(context: RelayerContext, slot: JournalSlot, how: { fresh: boolean; shared: boolean }): Promise<RelaySuccess> {
  const { journal } = context
  const answer = (code: string) => journal.answered(slot.nonce, code)
  const fail = (error: RelayError): never => {
    answer(error.code)
    throw error
  }
  const stored = storedOutcome(slot.outcome)
  const { message, reason } = outcomeText(stored)
  switch (slot.status) {
    case 'pending': {
      const text = how.fresh
        ? `broadcast as tx ${slot.txHash} but no receipt within ${context.config.receiptTimeoutMs} ms; it may still settle, in that tx or one replacing it: ${followStatus(slot.orderHash!)}`
        : `broadcast earlier as tx ${slot.txHash}, still without a receipt; it may still settle, in that tx or one replacing it: ${followStatus(slot.orderHash!)}`
      return fail(new RelayError('UPSTREAM_RPC', text, { txHash: slot.txHash }))
    }
    case 'settled': {
      // A replay after a client had its 200: the journal keeps 'OK', so every later replay
      // is answered the same way for as long as the chain says the same.
      if (!how.fresh && !how.shared && slot.answer === 'OK') throw replayError(slot.txHash)
      const success = await settledSuccessOf(context, slot, stored)
      answer('OK')
      return success
    }
    case 'reverted': {
      const owed = how.fresh || how.shared || slot.answer === null
      const why = await whyAuthorizationUsed(context, slot.orderHash!)
      // Another tx settled the order (this one lost the race): that settlement is the answer.
      if (why.kind === 'settled') return answeredSettled(context, slot, why.settlement, owed, answer)
      const where = `reverted on chain after broadcast in tx ${slot.txHash}`
      if (reason && isUsedReason(reason)) return fail(usedAuthorizationError(why, reason, slot.orderHash!, owed ? where : `not broadcast again: ${where}`, slot.txHash))
      if (owed) {
        // The token said the window had passed by the time the tx was mined: re-signing is the fix.
        if (reason && isExpiredReason(reason)) {
          return fail(new RelayError('AUTH_EXPIRED', `${where}: ${reason}; re-sign with a fresh window`, { txHash: slot.txHash }))
        }
        // The stored message guessed at a race; the chain was asked above, so only what it says is told.
        return fail(new RelayError('WOULD_REVERT', reason ? `${where}: ${reason}` : where, { txHash: slot.txHash }))
      }
      return fail(
        new RelayError('WOULD_REVERT', `not broadcast again: this order's tx ${slot.txHash} already reverted on chain${reason ? ` (${reason})` : ''}; build a new order with a fresh nonce`, { txHash: slot.txHash }),
      )
    }
    case 'filled': {
      const why = slot.orderHash ? await whyAuthorizationUsed(context, slot.orderHash) : { kind: 'unknown' as const }
      if (why.kind === 'settled') return answeredSettled(context, slot, why.settlement, how.fresh || how.shared, answer)
      const { code, message: text } = filledAnswer(slot)
      const used = text.match(/^would revert: ([^;]*authorization (?:is )?used[^;]*);/i)?.[1]
      if (used && why.kind === 'unknown') return fail(usedAuthorizationError(why, used, slot.orderHash!))
      return fail(new RelayError(code, text))
    }
    case 'foreign':
      return fail(new RelayError('UPSTREAM_RPC', message ?? `not settled: nonce ${slot.nonce} was taken by another process using the relayer's key; retry`))
  }
}

/** The codes a filler's outcome may carry (nonceKeeper.ts, `filledOutcome`). */
const filledCodes = new Set(['WOULD_REVERT', 'FEE_BELOW_FLOOR', 'UPSTREAM_RPC'] as const)
type FilledCode = typeof filledCodes extends Set<infer C> ? C : never

/**
 * What the clients of a filled slot are told when no other tx settled its order: the
 * code and message its filler stored. WOULD_REVERT (build a new order) only for an order
 * whose call reverts; an order refused by the node or not worth its gas is answered
 * UPSTREAM_RPC or FEE_BELOW_FLOOR: it can still settle, so it must not be signed again.
 */
export function filledAnswer(slot: Pick<JournalSlot, 'outcome' | 'txHash'>): { code: FilledCode; message: string } {
  const stored = storedOutcome(slot.outcome)
  const { message } = outcomeText(stored)
  const code = typeof stored === 'object' && stored !== null ? (stored as { code?: unknown }).code : undefined
  if (message === undefined) return { code: 'WOULD_REVERT', message: `would revert: its tx was dropped by the node and its nonce filled (tx ${slot.txHash})` }
  return { code: filledCodes.has(code as FilledCode) ? (code as FilledCode) : 'WOULD_REVERT', message }
}

/** A slot whose order another tx settled: 200 naming that tx when owed, else the replay answer; the code goes to the journal. */
async function answeredSettled(context: RelayerContext, slot: JournalSlot, settlement: Settlement, owed: boolean, answer: (code: string) => void): Promise<RelaySuccess> {
  try {
    const success = await answerSettled(context, settlement, (slot.adapter ?? slot.to) as Address, slot.orderHash!, owed)
    answer('OK')
    return success
  } catch (error) {
    if (error instanceof RelayError) answer(error.code)
    throw error
  }
}

/** The outcome JSON stored with the slot, parsed once (undefined when absent or unreadable). */
function storedOutcome(outcome: string | null): unknown {
  if (!outcome) return undefined
  try {
    return JSON.parse(outcome) as unknown
  } catch {
    return undefined
  }
}

/** The message (and revert reason) stored for an outcome that is not a settlement. */
function outcomeText(stored: unknown): { message?: string; reason?: string } {
  if (typeof stored !== 'object' || stored === null) return {}
  const { message, reason } = stored as { message?: unknown; reason?: unknown }
  return {
    ...(typeof message === 'string' ? { message } : {}),
    ...(typeof reason === 'string' ? { reason } : {}),
  }
}

/** The RelaySuccess stored when the watcher saw the receipt, else decoded from the receipt now. */
async function settledSuccessOf(context: RelayerContext, slot: JournalSlot, stored: unknown): Promise<RelaySuccess> {
  if (typeof stored === 'object' && stored !== null && (stored as { ok?: unknown }).ok === true) return stored as RelaySuccess
  const success = await settledSuccess(context, slot.txHash, (slot.adapter ?? slot.to) as Address, slot.orderHash!)
  context.journal.setOutcome(slot.nonce, JSON.stringify(success))
  return success
}
