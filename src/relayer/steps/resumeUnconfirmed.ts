import type { Hex } from 'viem'
import type { RelaySuccess } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { answerSlot } from './answerSlot.ts'

/**
 * Before an order is simulated and broadcast: if the journal holds a tx for this
 * orderHash, its outcome is the answer and nothing is broadcast. Still pending
 * (after a crash too): wait for it up to RELAYER_RECEIPT_TIMEOUT_MS and share its
 * outcome (UPSTREAM_RPC naming it if it is still pending). Settled: see
 * answerSlot. Reverted: WOULD_REVERT naming it. A slot whose nonce was filled or
 * taken by another process did not settle the order: undefined, and the order goes
 * through the pipeline anew (unless this request was waiting on that very tx).
 * @throws RelayError UPSTREAM_RPC, WOULD_REVERT
 */
export async function resumeUnconfirmed(context: RelayerContext, orderHash: Hex, shared: boolean): Promise<RelaySuccess | undefined> {
  const slot = context.journal.byOrder(orderHash)
  if (!slot) return undefined
  if (slot.status === 'pending') {
    const resolved = (await context.submitter.outcome(slot.nonce, context.config.receiptTimeoutMs)) ?? slot
    return answerSlot(context, resolved, { fresh: false, shared: resolved.status !== 'pending' || shared })
  }
  if ((slot.status === 'filled' || slot.status === 'foreign') && !shared) return undefined
  return answerSlot(context, slot, { fresh: false, shared })
}
