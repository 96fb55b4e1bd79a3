import type { Address, Hex } from 'viem'
import type { Journal } from '../relayer/journal/index.ts'
import type { SimNode } from './simNode.ts'

/** What the client of one order was told: sent (the relayer has it through), refused (never sent), or nothing (the process died first). */
export type Answer = { kind: 'sent'; nonce: number; hash: Hex } | { kind: 'refused'; code: string; message: string } | { kind: 'none' }

/** A broken invariant: its name and what was seen. */
export type Violation = { invariant: string; detail: string }

/**
 * The checks made after every block the node mines: no order has two txs mined, and no
 * tx of the key reverted that would already have reverted at the head when it was signed
 * (a revert the relayer could have foreseen).
 * Kept incrementally (a reorg starts them over from the chain).
 */
export function createChainChecks(node: SimNode) {
  let minedOrders = new Map<Hex, Hex>()
  let checkedBlocks = 0
  let lastChecked: Hex | undefined
  return function afterBlock(): Violation[] {
    const blocks = node.blocks()
    const violations: Violation[] = []
    // The last block checked is gone (a reorg): the chain is checked again from its start.
    if (lastChecked !== undefined && blocks[checkedBlocks - 1]?.hash !== lastChecked) {
      minedOrders = new Map()
      checkedBlocks = 0
    }
    for (const block of blocks.slice(checkedBlocks)) {
      for (const [i, tx] of block.txs.entries()) {
        const receipt = block.receipts[i]!
        if (tx.order) {
          const earlier = minedOrders.get(tx.order)
          if (earlier) violations.push({ invariant: 'an order has two txs mined', detail: `order ${tx.order}: ${earlier} and ${tx.hash} (nonce ${tx.nonce}, block ${block.number})` })
          else minedOrders.set(tx.order, tx.hash)
        }
        // A revert the relayer could not foresee (the order expired on the way) is the chain's doing; one it could is a paid mistake.
        if (receipt.status === 'reverted' && node.revertedAtSigning(tx.hash) !== false) {
          violations.push({ invariant: 'a tx reverted that already reverted when it was signed', detail: `tx ${tx.hash} (nonce ${tx.nonce}, order ${tx.order ?? 'none'}) reverted in block ${block.number}` })
        }
      }
    }
    checkedBlocks = blocks.length
    lastChecked = blocks.at(-1)?.hash
    return violations
  }
}

/**
 * The checks made once the faults have stopped and the chain has gone quiet: every
 * nonce pooled with one order's payload at most; every answer true of the final chain;
 * nothing left pending; the journal and the chain agree on every nonce.
 */
export function finalChecks(options: { node: SimNode; journal: Journal; key: Address; answers: ReadonlyMap<Hex, Answer>; expired: (order: Hex) => boolean }): Violation[] {
  const { node, journal, answers, expired } = options
  const violations: Violation[] = []
  // One order's payload per nonce (a replacement carries the same call; a filler none).
  const payloads = new Map<number, Set<string>>()
  for (const tx of node.seen().values()) {
    if (!tx.order) continue
    const set = payloads.get(tx.nonce) ?? new Set<string>()
    set.add(tx.order)
    payloads.set(tx.nonce, set)
  }
  for (const [nonce, orders] of payloads) {
    if (orders.size > 1) violations.push({ invariant: 'a nonce was signed with two orders', detail: `nonce ${nonce}: ${[...orders].join(', ')}` })
  }
  for (const [order, answer] of answers) {
    const settled = node.settledBy(order)
    if (answer.kind === 'refused' && settled) violations.push({ invariant: 'an order refused was settled', detail: `order ${order} was answered ${answer.code} (${answer.message}) and settled in ${settled}` })
    if (answer.kind !== 'sent') continue
    // What its client is told from here on is its slot's outcome (GET /broker/status, a replay).
    const slot = journal.byOrder(order)
    if (!slot) violations.push({ invariant: 'an order sent was lost', detail: `order ${order} was answered sent (nonce ${answer.nonce}, ${answer.hash}) and the journal has no slot for it` })
    else if (slot.status === 'settled' && settled !== slot.txHash.toLowerCase()) {
      violations.push({ invariant: 'an answer is untrue of the final chain', detail: `order ${order}: the journal says settled by ${slot.txHash}, the chain ${settled ? `by ${settled}` : 'not at all'}` })
    } else if (slot.status !== 'settled' && settled) {
      violations.push({ invariant: 'a client was told to sign again for an order that settled', detail: `order ${order}: the journal says ${slot.status} (${slot.outcome ?? 'no outcome'}), the chain settled it in ${settled}` })
    } else if (slot.status !== 'settled' && !expired(order) && slot.status !== 'filled') {
      violations.push({ invariant: 'an order sent never settled', detail: `order ${order} was answered sent (nonce ${answer.nonce}, ${answer.hash}); its slot is ${slot.status} and it can still settle` })
    }
  }
  if (journal.pendingCount() > 0) violations.push({ invariant: 'a slot is pending after the faults stopped', detail: `${journal.pendingCount()} slots pending, the key's nonce on chain ${node.nonce}, ${node.pooled} txs pooled` })
  const mined = node.blocks().flatMap((block) => block.txs.map((tx, i) => ({ tx, receipt: block.receipts[i]! })))
  const slots = journal.slots(mined.map(({ tx }) => tx.nonce))
  for (const { tx, receipt } of mined) {
    const slot = slots.get(tx.nonce)
    if (!slot) {
      violations.push({ invariant: 'the journal and the chain disagree', detail: `nonce ${tx.nonce} was mined (${tx.hash}) and the journal has no slot for it` })
      continue
    }
    const expected = receipt.status === 'reverted' ? 'reverted' : tx.order ? 'settled' : 'filled'
    if (slot.status !== expected || slot.txHash.toLowerCase() !== tx.hash) {
      violations.push({ invariant: 'the journal and the chain disagree', detail: `nonce ${tx.nonce}: the chain has ${tx.hash} (${expected}), the journal ${slot.txHash} (${slot.status})` })
    }
  }
  const next = journal.nextNonce() ?? 0
  if (next > node.nonce) violations.push({ invariant: 'the journal and the chain disagree', detail: `the journal holds nonces up to ${next - 1}, the chain's nonce is ${node.nonce}` })
  return violations
}
