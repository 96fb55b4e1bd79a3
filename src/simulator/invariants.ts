import type { Address, Hex } from 'viem'
import type { Journal } from '../relayer/journal/index.ts'
import type { SharedOutcome } from '../relayer/replicas/index.ts'
import { filledAnswer } from '../relayer/steps/answerSlot.ts'
import type { SimNode } from './simNode.ts'

/**
 * What the client of one order was told: sent (the relayer has it through), refused
 * (never sent), retry (a replica could not take it now: the shared state or another
 * request holds it), elsewhere (another replica published its tx), or nothing (the
 * process died first).
 */
export type Answer =
  // `pending`: no receipt yet when answered (the relayer's 502 naming the tx; a replacement may settle it).
  | { kind: 'sent'; nonce: number; hash: Hex; pending?: true }
  | { kind: 'refused'; code: string; message: string }
  | { kind: 'retry'; code: string; message: string }
  | { kind: 'elsewhere'; status: 'pending' | 'settled' | 'reverted'; hash: Hex }
  | { kind: 'none' }

/** An answer and the relayer process (its place among the replicas) that gave it. */
export type GivenAnswer = { order: Hex; relayer: number; answer: Answer }

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

/** Refusals that tell the client to send the same order again (docs/errors.md), not to sign a new one. */
const retryCodes = new Set<string>(['UPSTREAM_RPC', 'INSUFFICIENT_RELAYER_GAS', 'RATE_LIMITED'])

/** A relayer process as the final checks read it: its key and its journal. */
export type CheckedRelayer = { key: Address; journal: Journal }

/**
 * The checks made once the faults have stopped and the chain has gone quiet: every
 * nonce of a key pooled with one order's payload at most; every answer true of the final
 * chain (a sent order's journal slot, and what the replicas published of each order);
 * nothing left pending; each relayer's journal and the chain agree on every nonce of its key.
 */
export function finalChecks(options: {
  node: SimNode
  relayers: readonly CheckedRelayer[]
  answers: readonly GivenAnswer[]
  expired: (order: Hex) => boolean
  /** What the replicas' shared state holds for an order at the end (replicas only). */
  published?: (order: Hex) => SharedOutcome | undefined
}): Violation[] {
  const { node, relayers, answers, expired } = options
  const violations: Violation[] = []
  // One order's payload per nonce of a key (a replacement carries the same call; a filler none).
  const payloads = new Map<string, Set<string>>()
  for (const tx of node.seen().values()) {
    if (!tx.order) continue
    const at = `${tx.from} nonce ${tx.nonce}`
    const set = payloads.get(at) ?? new Set<string>()
    set.add(tx.order)
    payloads.set(at, set)
  }
  for (const [at, orders] of payloads) {
    if (orders.size > 1) violations.push({ invariant: 'a nonce was signed with two orders', detail: `${at}: ${[...orders].join(', ')}` })
  }
  const judged = new Set<Hex>()
  const lastSend = new Map<Hex, number>()
  answers.forEach(({ order }, i) => lastSend.set(order, i))
  for (const [i, { order, relayer, answer }] of answers.entries()) {
    const settled = node.settledBy(order)
    // "Retry" refusals (UPSTREAM_RPC) are judged on the order's last send: an earlier one may have been retried and settled.
    const retried = answer.kind === 'refused' && retryCodes.has(answer.code) && lastSend.get(order) !== i
    if (answer.kind === 'refused' && settled && !retried) violations.push({ invariant: 'an order refused was settled', detail: `order ${order} was answered ${answer.code} (${answer.message}) by relayer ${relayer + 1} and settled in ${settled}` })
    if (answer.kind === 'elsewhere' && options.published && !judged.has(order)) {
      // What a replay at any replica is told from here on: the outcome published (answerFromReplicas).
      judged.add(order)
      const outcome = options.published(order)
      if (outcome?.status === 'settled' && outcome.txHash.toLowerCase() !== settled) {
        violations.push({ invariant: 'an answer is untrue of the final chain', detail: `order ${order}: the replicas publish it settled by ${outcome.txHash}, the chain ${settled ? `by ${settled}` : 'not at all'}` })
      }
    }
    if (answer.kind !== 'sent') continue
    // What its client is told from here on is its slot's outcome (GET /broker/status, a replay).
    const slot = relayers[relayer]!.journal.byOrder(order)
    if (!slot) violations.push({ invariant: 'an order sent was lost', detail: `order ${order} was answered sent (nonce ${answer.nonce}, ${answer.hash}) and the journal has no slot for it` })
    else if (slot.status === 'settled' && settled !== slot.txHash.toLowerCase()) {
      violations.push({ invariant: 'an answer is untrue of the final chain', detail: `order ${order}: the journal says settled by ${slot.txHash}, the chain ${settled ? `by ${settled}` : 'not at all'}` })
    } else if (slot.status !== 'settled' && settled && !(slot.status === 'filled' && retryCodes.has(filledAnswer(slot).code))) {
      // A slot filled though its order could still settle tells its clients to send it again, not to sign a new one.
      violations.push({ invariant: 'a client was told to sign again for an order that settled', detail: `order ${order}: the journal says ${slot.status} (${slot.outcome ?? 'no outcome'}), the chain settled it in ${settled}` })
    } else if (slot.status !== 'settled' && !expired(order) && slot.status !== 'filled') {
      violations.push({ invariant: 'an order sent never settled', detail: `order ${order} was answered sent (nonce ${answer.nonce}, ${answer.hash}); its slot is ${slot.status} and it can still settle` })
    }
  }
  for (const relayer of relayers) violations.push(...journalAgrees(node, relayer))
  return violations
}

/** One relayer's journal against the chain: nothing pending, and every nonce of its key mined as its slot says. */
function journalAgrees(node: SimNode, { key, journal }: CheckedRelayer): Violation[] {
  const violations: Violation[] = []
  const own = key.toLowerCase()
  const nonce = node.nonceOf(own as Address)
  if (journal.pendingCount() > 0) violations.push({ invariant: 'a slot is pending after the faults stopped', detail: `key ${key}: ${journal.pendingCount()} slots pending, the key's nonce on chain ${nonce}, ${node.pooledOf(key)} txs pooled` })
  const mined = node.blocks().flatMap((block) => block.txs.flatMap((tx, i) => (tx.from === own ? [{ tx, receipt: block.receipts[i]! }] : [])))
  const slots = journal.slots(mined.map(({ tx }) => tx.nonce))
  for (const { tx, receipt } of mined) {
    const slot = slots.get(tx.nonce)
    if (!slot) {
      violations.push({ invariant: 'the journal and the chain disagree', detail: `key ${key}: nonce ${tx.nonce} was mined (${tx.hash}) and the journal has no slot for it` })
      continue
    }
    const expected = receipt.status === 'reverted' ? 'reverted' : tx.order ? 'settled' : 'filled'
    if (slot.status !== expected || slot.txHash.toLowerCase() !== tx.hash) {
      violations.push({ invariant: 'the journal and the chain disagree', detail: `key ${key}: nonce ${tx.nonce}: the chain has ${tx.hash} (${expected}), the journal ${slot.txHash} (${slot.status})` })
    }
  }
  const next = journal.nextNonce() ?? 0
  if (next > nonce) violations.push({ invariant: 'the journal and the chain disagree', detail: `key ${key}: the journal holds nonces up to ${next - 1}, the chain's nonce is ${nonce}` })
  return violations
}
