import type { Hex } from 'viem'
import type { RelayError } from '../relayer/errors.ts'
import { parseOutcome } from '../relayer/replicas/index.ts'
import type { SendRequest } from '../relayer/submitter/sendRequest.ts'
import type { JournalSlot } from '../relayer/journal/index.ts'
import { outcomeToPublish } from '../relayer/steps/answerFromReplicas.ts'
import { filledAnswer } from '../relayer/steps/answerSlot.ts'
import type { Answer } from './invariants.ts'
import type { SimRelayer } from './simRelayer.ts'

/** RELAYER_RECEIPT_TIMEOUT_MS of the simulated replicas: how long a request waits for a claim, and for its tx's receipt. */
export const replicaReceiptTimeoutMs = 30_000

/**
 * One order at a replica, in the order `relayChecked` (src/relayer/pipeline.ts) takes its
 * steps for replicas: the orderHash claim (waiting while another request holds it) →
 * the journal's tx for the order (resumeUnconfirmed: waited for while pending) → the
 * shared state's refusal → the outcome another replica published, read with the claim
 * (answerFromReplicas) → the window check and the simulation → broadcast and wait for
 * the receipt → the claim released with the outcome published in the same step
 * (outcomeToPublish). `check` is the window check and the simulation: undefined, or the
 * answer they give instead of a broadcast (a refusal; an order another tx settled,
 * answered from the chain).
 */
export async function relayAtReplica(relayer: SimRelayer, order: Hex, request: SendRequest, check: () => Answer | undefined): Promise<Answer> {
  const replicas = relayer.replicas!
  const deadline = Date.now() + replicaReceiptTimeoutMs
  while (!(await replicas.claims.claim(order))) {
    if (Date.now() >= deadline) return { kind: 'retry', code: 'UPSTREAM_RPC', message: 'another request for this order is still being relayed' }
    await replicas.claims.released(order, Math.max(1, Math.min(1_000, deadline - Date.now())))
  }
  let failure: RelayError | undefined
  try {
    const slot = relayer.journal.byOrder(order)
    if (slot && slot.status !== 'filled' && slot.status !== 'foreign') {
      // The tx the slot ends with (a replacement's, when one was mined).
      return answerOf(slot.status === 'pending' ? ((await relayer.submitter.outcome(slot.nonce, replicaReceiptTimeoutMs)) ?? slot) : slot)
    }
    const refusal = replicas.refusal(order)
    if (refusal) return { kind: 'retry', code: refusal.code, message: refusal.message }
    const outcome = parseOutcome(replicas.claims.outcomeAtClaim(order) ?? null)
    if (outcome) return { kind: 'elsewhere', status: outcome.status, hash: outcome.txHash as Hex }
    const instead = check()
    if (instead) return instead
    const sent = await relayer.submitter.send(request)
    return answerOf((await relayer.submitter.outcome(sent.nonce, replicaReceiptTimeoutMs)) ?? { nonce: sent.nonce, txHash: sent.hash, status: 'pending' })
  } catch (error) {
    failure = error as RelayError
    return { kind: 'refused', code: failure.code ?? 'ERROR', message: failure.message ?? String(error) }
  } finally {
    await replicas.claims.releaseWith(order, outcomeToPublish({ journal: relayer.journal }, order, failure))
  }
}

/**
 * What a client waiting on its order's slot is told: the tx the slot ends with, or, for a
 * slot whose nonce was filled, the code and message its filler stored (answerSlot's
 * `filledAnswer`, which the invariants judge: a retry code for an order that can still settle).
 */
function answerOf(slot: Pick<JournalSlot, 'nonce' | 'txHash' | 'status'> & Partial<Pick<JournalSlot, 'outcome'>>): Answer {
  if (slot.status === 'filled') {
    const { code, message } = filledAnswer({ outcome: slot.outcome ?? null, txHash: slot.txHash })
    return { kind: 'refused', code, message }
  }
  return { kind: 'sent', nonce: slot.nonce, hash: slot.txHash, ...(slot.status === 'pending' ? { pending: true as const } : {}) }
}
