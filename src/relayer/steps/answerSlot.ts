import type { RelaySuccess } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'
import type { JournalSlot } from '../journal/index.ts'
import { decodeSettlement } from './decodeSettlement.ts'
import { isExpiredReason } from './simulate.ts'

/**
 * How the client who asked is answered about a slot of its order:
 * - `fresh`: it is the request that broadcast the tx;
 * - `shared`: it asked while the order's tx was in flight or pending, so it shares
 *   that tx's outcome.
 * A settled order answers 200 to those, and to a retry while no client has had its
 * 200 yet; after that a replay is WOULD_REVERT "authorization used" naming the tx
 * that settled it. A reverted order is WOULD_REVERT naming the reverted tx and is
 * never broadcast again. The code answered is written to the journal.
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
        ? `broadcast as tx ${slot.txHash} but no receipt within ${context.config.receiptTimeoutMs} ms; check the tx before retrying`
        : `broadcast earlier as tx ${slot.txHash}, still without a receipt; check the tx before retrying`
      return fail(new RelayError('UPSTREAM_RPC', text, { txHash: slot.txHash }))
    }
    case 'settled': {
      if (!how.fresh && !how.shared && slot.answer === 'OK') {
        return fail(new RelayError('WOULD_REVERT', `would revert: authorization used (already settled in tx ${slot.txHash}); build a new order with a fresh nonce`))
      }
      const success = await settledSuccess(context, slot, stored)
      answer('OK')
      return success
    }
    case 'reverted': {
      const why = reason
      if (how.fresh || how.shared || slot.answer === null) {
        const text = message ?? `reverted on chain after broadcast in tx ${slot.txHash}`
        // The token said the window had passed by the time the tx was mined: re-signing is the fix.
        if (why && isExpiredReason(why)) {
          return fail(new RelayError('AUTH_EXPIRED', `reverted on chain after broadcast in tx ${slot.txHash}: ${why}; re-sign with a fresh window`, { txHash: slot.txHash }))
        }
        return fail(new RelayError('WOULD_REVERT', text, { txHash: slot.txHash }))
      }
      return fail(
        new RelayError('WOULD_REVERT', `not broadcast again: this order's tx ${slot.txHash} already reverted on chain${why ? ` (${why})` : ''}; build a new order with a fresh nonce`, { txHash: slot.txHash }),
      )
    }
    case 'filled':
      return fail(new RelayError('WOULD_REVERT', message ?? `would revert: its tx was dropped by the node and its nonce filled (tx ${slot.txHash})`))
    case 'foreign':
      return fail(new RelayError('UPSTREAM_RPC', message ?? `not settled: nonce ${slot.nonce} was taken by another process using the relayer's key; retry`))
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
async function settledSuccess(context: RelayerContext, slot: JournalSlot, stored: unknown): Promise<RelaySuccess> {
  if (typeof stored === 'object' && stored !== null && (stored as { ok?: unknown }).ok === true) return stored as RelaySuccess
  let receipt
  try {
    receipt = await context.client.getTransactionReceipt({ hash: slot.txHash })
  } catch (error) {
    throw new RelayError('UPSTREAM_RPC', `settled in tx ${slot.txHash}, but the relayer's RPC failed while reading its receipt; retry`, { cause: error, txHash: slot.txHash })
  }
  const success = decodeSettlement(receipt, context.config.broker, (slot.adapter ?? slot.to), slot.orderHash!)
  context.journal.setOutcome(slot.nonce, JSON.stringify(success))
  return success
}
