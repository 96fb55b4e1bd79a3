import type { Hex } from 'viem'
import type { Journal } from '../journal/index.ts'
import { outcomeOfSlot } from './republishOutcomes.ts'
import { outcomeTtlMs, type SharedOutcomes } from './sharedOutcomes.ts'

/**
 * Keeps what this replica published of its own orders true across reorgs, so that no
 * other replica answers `settled` (or `final`) for a tx the chain no longer holds:
 * - a reorg takes an order's tx out: its slot is pending again, and published pending
 *   over the settlement of that tx (another replica then answers it as in flight);
 * - the slot is resolved again: what it came to is published (a settlement in its new
 *   block, a revert), or, when its nonce was filled because the order no longer settles,
 *   the outcome is withdrawn and another replica judges the order itself;
 * - a reorg keeps the tx in another block: its settlement is published with that block.
 * Best effort, as every publication: Redis failing leaves the old value until its TTL.
 */
export function followReorgs(journal: Pick<Journal, 'observe' | 'slot' | 'pending'>, outcomes: Pick<SharedOutcomes, 'publish' | 'withdraw'>): void {
  // The slots a reorg reopened, with their order and the tx published for it; and the
  // slots pending at start, which a reorg may have reopened before a restart.
  const reopened = new Map<number, { orderHash: Hex; txHash: Hex }>()
  for (const slot of journal.pending()) if (slot.orderHash) reopened.set(slot.nonce, { orderHash: slot.orderHash, txHash: slot.txHash })
  const republish = (nonce: number) => {
    const slot = journal.slot(nonce)
    const outcome = slot?.orderHash ? outcomeOfSlot(slot) : undefined
    if (slot?.orderHash && outcome) void outcomes.publish(slot.orderHash, outcome, outcomeTtlMs, true)
    return { slot, outcome }
  }
  journal.observe(
    {
      reopened({ nonce }) {
        const { slot } = republish(nonce)
        if (slot?.orderHash) reopened.set(nonce, { orderHash: slot.orderHash, txHash: slot.txHash })
      },
      moved: republish,
      resolved(nonce) {
        const was = reopened.get(nonce)
        if (!was) return
        reopened.delete(nonce)
        if (!republish(nonce).outcome) void outcomes.withdraw(was.orderHash, was.txHash)
      },
    },
    Date.now(),
  )
}
