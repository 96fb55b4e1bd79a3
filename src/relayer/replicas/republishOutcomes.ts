import type { Hex } from 'viem'
import type { Journal, JournalSlot } from '../journal/index.ts'
import { outcomeTtlMs, type SharedOutcome, type SharedOutcomes } from './sharedOutcomes.ts'

/** How many of the journal's latest nonces are looked at for recent orders. */
export const recentNonces = 10_000

/** What a slot tells the other replicas, or undefined when it settled nothing they need to know of. */
export function outcomeOfSlot(slot: JournalSlot): SharedOutcome | undefined {
  if (slot.status !== 'pending' && slot.status !== 'settled' && slot.status !== 'reverted') return undefined
  return { status: slot.status, txHash: slot.txHash, ...(slot.blockNumber === null ? {} : { blockNumber: slot.blockNumber.toString() }) }
}

/** When a mined slot's outcome began: its mining, else (a slot journaled without it) its last send. */
const since = (slot: JournalSlot) => slot.minedAt ?? slot.sentAt

/**
 * The orders this replica's journal holds, for the other replicas once Redis lost
 * what it had (sharedState.ts): every pending slot, and the settled and reverted ones
 * mined within the outcomes' lifetime (24 h) among its latest `recentNonces` nonces,
 * each published under its orderHash for what remains of that lifetime (a pending one
 * for the whole of it; never over a settlement another replica published, see
 * sharedOutcomes.ts). A mined slot's lifetime runs from when it was mined: a slot a
 * reorg reopened has its send time set to 0 (sent again at once), and once mined again
 * only its mining time says how recent it is. Reads the
 * journal only (its `pending`, `nextNonce` and `slots`). False when Redis failed.
 */
export async function republishOutcomes(journal: Pick<Journal, 'pending' | 'nextNonce' | 'slots'>, outcomes: SharedOutcomes, now = Date.now()): Promise<boolean> {
  const next = journal.nextNonce() ?? 0
  const from = Math.max(0, next - recentNonces)
  const slots = new Map<number, JournalSlot>(journal.slots(Array.from({ length: next - from }, (_, i) => from + i)))
  for (const slot of journal.pending()) slots.set(slot.nonce, slot)
  // The latest slot of each order wins (an order signed again after a filled nonce).
  const byOrder = new Map<Hex, JournalSlot>()
  for (const slot of [...slots.values()].sort((a, b) => a.nonce - b.nonce)) {
    if (slot.orderHash && (slot.status === 'pending' || now - since(slot) < outcomeTtlMs)) byOrder.set(slot.orderHash.toLowerCase() as Hex, slot)
  }
  const writes: Promise<boolean>[] = []
  for (const [orderHash, slot] of byOrder) {
    const outcome = outcomeOfSlot(slot)
    // A pending tx's outcome lives as long as any does: its send time may be 0 (due to be sent again at once).
    const ttlMs = slot.status === 'pending' ? outcomeTtlMs : Math.max(1_000, outcomeTtlMs - (now - since(slot)))
    if (outcome) writes.push(outcomes.publish(orderHash, outcome, ttlMs, false, 'restoring'))
  }
  return (await Promise.all(writes)).every(Boolean)
}
