import type { Hex } from 'viem'
import type { RelayError } from '../relayer/errors.ts'
import { parseOutcome } from '../relayer/replicas/index.ts'
import type { SendRequest } from '../relayer/submitter/sendRequest.ts'
import { outcomeToPublish } from '../relayer/steps/answerFromReplicas.ts'
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
      const resolved = slot.status === 'pending' ? ((await relayer.submitter.outcome(slot.nonce, replicaReceiptTimeoutMs)) ?? slot) : slot
      return { kind: 'sent', nonce: resolved.nonce, hash: resolved.txHash }
    }
    const refusal = replicas.refusal(order)
    if (refusal) return { kind: 'retry', code: refusal.code, message: refusal.message }
    const outcome = parseOutcome(replicas.claims.outcomeAtClaim(order) ?? null)
    if (outcome) return { kind: 'elsewhere', status: outcome.status, hash: outcome.txHash as Hex }
    const instead = check()
    if (instead) return instead
    const sent = await relayer.submitter.send(request)
    const resolved = await relayer.submitter.outcome(sent.nonce, replicaReceiptTimeoutMs)
    return { kind: 'sent', nonce: sent.nonce, hash: resolved?.txHash ?? sent.hash }
  } catch (error) {
    failure = error as RelayError
    return { kind: 'refused', code: failure.code ?? 'ERROR', message: failure.message ?? String(error) }
  } finally {
    await replicas.claims.releaseWith(order, outcomeToPublish({ journal: relayer.journal }, order, failure))
  }
}
