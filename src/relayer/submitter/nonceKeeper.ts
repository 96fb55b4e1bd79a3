import type { Address, Hex, PublicClient } from 'viem'
import type { Logger } from '../../shared/index.ts'
import { keccak256 } from '../../wire/index.ts'
import type { JournalSlot, JournalTx } from '../journal/index.ts'
import type { createFeeCache, Fees } from './feeCache.ts'
import type { KeyGuard } from './keyGuard.ts'
import { bumpedWithin } from './fees.ts'
import { nodeSays } from '../rpcErrors.ts'
import { sendRaw } from './sendRaw.ts'
import type { SlotWatch } from './slotWatch.ts'
import type { TxSigner } from './txSigner.ts'

/**
 * Why a slot's order should not be sent again at `fees`: its call would revert now
 * (`reverts`: the decoded reason), or it would not pay for itself at that price
 * (`loses`: why). Its nonce is then filled. Undefined: send it.
 */
export type WouldRevert = (slot: JournalSlot, fees: Fees) => Promise<{ reverts: string } | { loses: string } | undefined>
/** Why a slot's nonce is filled: its order reverts or would not pay (WouldRevert), or the node refuses its tx as signed (`refused`). */
type Reason = NonNullable<Awaited<ReturnType<WouldRevert>>> | { refused: string }

/**
 * The outcome a filled slot keeps: the code and message its clients are answered. Only
 * an order that can no longer settle (its call reverts) is told to build a new order;
 * one that would not pay at today's gas price, or whose tx the node refused, was not
 * settled and nothing of it was spent, but it can still settle (here, sent again, or at
 * another relayer), so its client is told to send the same order again: a new order
 * signed beside it could be settled too, and paid twice.
 */
export function filledOutcome(reason: Reason, txHash: Hex, what: string): { code: 'WOULD_REVERT' | 'FEE_BELOW_FLOOR' | 'UPSTREAM_RPC'; message: string } {
  const filled = `its tx ${txHash} ${what} before it was mined and its nonce was filled`
  if ('reverts' in reason) return { code: 'WOULD_REVERT', message: `would revert: ${reason.reverts}; ${filled}; build a new order with a fresh nonce` }
  const unspent = 'nothing was spent on this order and it can still settle'
  if ('loses' in reason) return { code: 'FEE_BELOW_FLOOR', message: `not settled: ${reason.loses}; ${filled}; ${unspent}: send it again once its fee pays for the gas, or to another relayer` }
  return { code: 'UPSTREAM_RPC', message: `not settled: the node refuses its transaction (${reason.refused}); ${filled}; ${unspent}: send the same request again (it is signed anew) or to another relayer` }
}

/** Pending slots looked at per round. */
const slotsPerRound = 32
/** Pending slots below the key's nonce looked up per round when more are left than `slotsPerRound` (one batch of receipts). */
const lookedPerRound = 256

/** How long apart two looks at the same head must be to call a slot `foreign` (see `tick`). */
export const foreignAfterMs = 1_000

/**
 * Keeps the gas key's nonces moving, whether or not a client still waits
 * (docs/relayer-safety.md). Each round compares the chain's `latest` nonce with the
 * journal's pending slots:
 * - below it, a slot none of whose txs has a receipt lost its nonce to a tx the
 *   journal does not know (another process on the same key): resolved `foreign`, once
 *   two looks at two heads, or `foreignAfterMs` apart, both said so (a node may serve a
 *   block's receipts a moment after the block and its nonces);
 * - at or above it, a tx unseen for `reviveAfterMs` is checked: one the node lost is
 *   sent again exactly as signed, or, when its order can no longer settle, its
 *   nonce is filled with a 0-value self-transfer; one refused as underpriced, or
 *   pooled below the base fee, or pooled at the key's next nonce and unmined for
 *   `stuckAfterMs` though it pays enough (a pool that holds it back), is replaced at
 *   ≥ +12.5 % fees (same call, same nonce). A first tx at the key's next nonce is
 *   replaced sooner when the node has mined no block for ten times as long as the key's
 *   txs usually wait (at least `reviveAfterMs`): a node that stopped mining with a ready
 *   tx in its pool (anvil's automine, see `stalled`).
 * Before an order's tx is sent again or replaced, the order is simulated again and judged
 * at the fees it would then pay (`wouldRevert`): one that would revert, or would not
 * pay for itself, has its nonce filled instead. No replacement or filler is signed over
 * the fee cap (RELAYER_MAX_FEE_PER_GAS_WEI): a tx that cannot be replaced under it waits.
 * Every replacement and filler is written to the journal before it is sent.
 */
export function createNonceKeeper(options: {
  client: PublicClient
  /** The gas key (only its address is read: the signer signs). */
  account: { readonly address: Address }
  chainId: number
  fees: ReturnType<typeof createFeeCache>
  /** The slot life and the chain reads, lookups and block pace it shares with the receipt watcher. */
  watch: Pick<SlotWatch, 'life' | 'reads' | 'lookups' | 'pace'>
  logger: Logger
  reviveAfterMs: number
  /** How long the next nonce's tx may sit unmined in the pool before it is replaced (default 5 × reviveAfterMs, at least 10 s). */
  stuckAfterMs?: number
  wouldRevert: WouldRevert
  /** Signs with the gas key (see txSigner.ts). */
  signer: TxSigner
  /** Told when another process signs with the key (a nonce taken by a tx the journal does not know). */
  keyGuard?: KeyGuard
}) {
  const { client, account, chainId, logger } = options
  const { life, reads, lookups, pace } = options.watch
  const { journal } = life
  // How long the next nonce's tx may sit in the pool unmined, though it pays enough,
  // before it is replaced (each replacement restarts the count, so fees rise slowly).
  const stuckAfterMs = options.stuckAfterMs ?? Math.max(10_000, 5 * options.reviveAfterMs)

  /** Fees for a replacement of `current`: +12.5 % at least, under the cap; undefined when the cap leaves no room (the tx waits). */
  async function replacementFees(current: JournalTx): Promise<Fees | undefined> {
    const fresh = await options.fees.fresh()
    return bumpedWithin(current, fresh, options.fees.cap)
  }

  /**
   * Signs a replacement or filler (nothing is written or sent yet). A signature that fails
   * (a remote signer or KMS down) throws: the slot stays as it was, its tx as signed, and a
   * later round tries again.
   */
  async function signTx(slot: JournalSlot, fees: Fees, call: { to: Hex; data: Hex; gas: bigint }, kind: JournalTx['kind']): Promise<JournalTx> {
    const [raw] = (await options.signer.signAll([{ type: 'eip1559', chainId, nonce: slot.nonce, ...call, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }])) as [Hex]
    return { hash: keccak256(raw), nonce: slot.nonce, raw, ...fees, kind, signedAt: Date.now() }
  }

  /** Writes a signed replacement or filler to the journal, durably, then sends it. */
  async function commit(tx: JournalTx): Promise<void> {
    await life.replaced(tx)
    await sendRaw(client, tx.raw, tx.hash)
  }

  /** Signs, writes and sends a filler of the slot's nonce, its clients' answer (`outcome`) stored with it. */
  async function signFiller(slot: JournalSlot, fees: Fees, outcome: ReturnType<typeof filledOutcome>): Promise<JournalTx> {
    const tx = await signTx(slot, fees, { to: account.address, data: '0x', gas: 21_000n }, 'filler')
    journal.setOutcome(slot.nonce, JSON.stringify(outcome))
    await commit(tx)
    return tx
  }

  /** Said once per tx: it cannot be replaced under the fee cap, so it waits. */
  const capped = new Set<Hex>()
  function waitUnderCap(slot: JournalSlot, current: JournalTx, why: string) {
    life.resent(slot.nonce)
    if (capped.has(current.hash)) return
    capped.add(current.hash)
    if (capped.size > 1_000) capped.delete(capped.values().next().value!)
    logger.warn(`tx ${current.hash} ${why}, but a replacement would pass RELAYER_MAX_FEE_PER_GAS_WEI (${options.fees.cap} wei); it waits for the base fee to fall`)
  }

  async function replace(slot: JournalSlot, current: JournalTx, why: string) {
    const fees = await replacementFees(current)
    if (!fees) return waitUnderCap(slot, current, why)
    if (current.kind !== 'filler' && slot.orderHash) {
      // Never bump into a foreseeable loss: the order simulated again, and judged at the new fees.
      const reason = await options.wouldRevert(slot, fees)
      if (reason) return fill(slot, current, reason, { what: why, inPool: true })
    }
    const kind = current.kind === 'filler' ? 'filler' : 'replacement'
    const tx = await signTx(slot, fees, { to: slot.to, data: slot.data, gas: slot.gas }, kind)
    if (current.kind !== 'filler' && slot.orderHash) {
      // A slow signer (a remote signer or KMS) may have held the signature past the order's
      // window: judged again before the replacement is written or sent, which would be a paid revert.
      const late = await options.wouldRevert(slot, fees)
      if (late) return fill(slot, current, late, { what: why, inPool: true })
    }
    await commit(tx)
    logger.warn(`tx ${current.hash} ${why}; replaced it by tx ${tx.hash} at a higher fee`)
  }

  /**
   * Fills the slot's nonce with a 0-value self-transfer. Over a tx the node still holds
   * (`inPool`) the filler must outbid it by 12.5 %, under the cap, or wait; over one the
   * node does not hold (dropped, or refused when sent again), the fresh fees under the cap do (as for a refused tx, `fillGap`):
   * a tx signed at the cap during a base fee spike could otherwise never be filled, and
   * every later nonce would wait behind it for good.
   */
  async function fill(slot: JournalSlot, current: JournalTx, reason: Reason, { what, inPool }: { what: string; inPool: boolean } = { what: 'was dropped by the node', inPool: false }) {
    const why = 'reverts' in reason ? `its order can no longer settle (${reason.reverts})` : 'loses' in reason ? `its order would not pay for itself (${reason.loses})` : `the node refuses it as signed (${reason.refused})`
    let fees = await replacementFees(current)
    if (!fees && !inPool) {
      const fresh = await options.fees.fresh()
      fees = { maxFeePerGas: fresh.maxFeePerGas, maxPriorityFeePerGas: fresh.maxPriorityFeePerGas }
    }
    if (!fees) return waitUnderCap(slot, current, `${what} and ${why}`)
    const outcome = filledOutcome(reason, current.hash, what)
    const tx = await signFiller(slot, fees, outcome)
    logger.warn(`tx ${current.hash} ${what} and ${why}; filled nonce ${slot.nonce} with a 0-value transfer, tx ${tx.hash}`)
  }

  /**
   * Whether the node has stopped mining while `current`, the first tx at the key's next
   * nonce, waits in its pool: no block for ten times the key's usual wait (and at least
   * `reviveAfterMs`), and the tx signed at least that long ago. anvil's automine misses a
   * tx that became ready while a block was being mined (foundry-rs/foundry#10122): it
   * mines nothing more, and every later order waits behind it, until a new tx enters the
   * pool. The blocks before the stall may have come after the tx was signed (the earlier
   * txs of its batch, or of the batch before, signed ahead), so the quiet is counted from
   * the last block, not from the tx. On a chain that is only slow, blocks keep coming or
   * are seconds apart (a long usual wait): both are left to `stuckAfterMs`. Once only per
   * tx: its replacement waits for `stuckAfterMs` like any other.
   * @returns how long the node has been quiet and the tx has waited, or undefined.
   */
  function stalled(current: JournalTx): { quietMs: number; waitedMs: number; usualMs: number } | undefined {
    if (current.kind !== 'order') return undefined
    const movedAt = pace.movedAt()
    const usualMs = pace.typicalWaitMs()
    if (movedAt === undefined || usualMs === undefined) return undefined
    const limit = Math.max(options.reviveAfterMs, 10 * usualMs)
    const now = Date.now()
    const quietMs = now - movedAt
    const waitedMs = now - current.signedAt
    return quietMs >= limit && waitedMs >= limit ? { quietMs, waitedMs, usualMs } : undefined
  }

  async function revive(slot: JournalSlot, latest: number, at: bigint) {
    const current = journal.tx(slot.txHash)
    if (!current) return
    const known = (await client.request({ method: 'eth_getTransactionByHash', params: [slot.txHash] })) as { blockNumber: Hex | null } | null
    if (known) {
      if (known.blockNumber !== null) return // mined: the watcher resolves it
      const { baseFeePerGas } = await client.getBlock({ blockTag: 'latest' })
      const quiet = slot.nonce === latest ? stalled(current) : undefined
      if (baseFeePerGas !== null && baseFeePerGas > current.maxFeePerGas) {
        await replace(slot, current, 'is priced out of blocks (the base fee rose above its fee cap)')
      } else if (slot.nonce === latest && Date.now() - current.signedAt >= stuckAfterMs) {
        // The very next nonce, in the pool, paying enough, and still not mined: the pool
        // holds it back (anvil's automine strands such a tx as "queued" under load, and
        // every later nonce waits behind it). A replacement enters the pool afresh.
        await replace(slot, current, `has waited in the node's pool at the key's next nonce for ${Math.round((Date.now() - current.signedAt) / 1000)} s without being mined`)
      } else if (quiet) {
        const seconds = (ms: number) => (ms / 1000).toFixed(1)
        await replace(slot, current, `has waited in the node's pool at the key's next nonce for ${seconds(quiet.waitedMs)} s while the node mined no block for ${seconds(quiet.quietMs)} s (this key's txs were mined ${quiet.usualMs} ms after sending, at the median)`)
      } else life.resent(slot.nonce)
      return
    }
    if (current.kind !== 'filler' && slot.orderHash) {
      // Sent again as signed: judged at its own fees.
      const reason = await options.wouldRevert(slot, current)
      if (reason) {
        // An order whose authorization reads as used may have been settled by this very tx on a node ahead of the one asked: its receipt first.
        const looked = await lookups.lookupAt([slot], at)
        if (looked.lagging || looked.unmined.length === 0) return
        return fill(slot, current, reason)
      }
    }
    const outcome = await sendRaw(client, current.raw, current.hash)
    if (outcome.kind === 'accepted') {
      life.resent(slot.nonce)
      logger.warn(`tx ${current.hash} was no longer known to the node; sent it again as signed`)
    } else if (outcome.kind === 'underpriced') {
      await replace(slot, current, 'was refused as underpriced when sent again')
    } else if (outcome.kind === 'refused' && current.kind !== 'filler' && slot.orderHash) {
      // The node will never take it as signed: the nonce goes to a filler, so the nonces behind it move.
      await fill(slot, current, { refused: nodeSays(outcome.error) }, { what: 'was no longer known to the node', inPool: false })
    } else if (outcome.kind !== 'nonceTaken' && outcome.kind !== 'unanswered') {
      logger.warn(`tx ${current.hash} was no longer known to the node and could not be sent again (${outcome.kind}); will try again`)
      life.resent(slot.nonce)
    }
  }

  // Nonces seen taken with no receipt of their txs, and the head (number and hash) and time
  // of that first look: a slot is called foreign only when a look at a later head of the same
  // chain, or at the same head `foreignAfterMs` later, says so again.
  const suspects = new Map<number, { at: bigint; hash: Hex; time: number }>()

  return {
    /**
     * Fills a nonce whose tx the node refused while later txs of the key may be pooled
     * (they would wait behind the gap for good): the slot keeps the refusal as its outcome
     * (`filledOutcome`: its order can still settle) and takes a 0-value self-transfer,
     * written to the journal before it is sent.
     */
    async fillGap(nonce: number, why: string): Promise<void> {
      const slot = journal.slot(nonce)
      const current = slot && journal.tx(slot.txHash)
      if (!slot || !current) return
      // The refused tx is in no pool: the filler needs no bump over it, only the cap.
      const fresh = await options.fees.fresh()
      const fees = bumpedWithin(current, fresh, options.fees.cap) ?? { maxFeePerGas: fresh.maxFeePerGas, maxPriorityFeePerGas: fresh.maxPriorityFeePerGas }
      const outcome = filledOutcome({ refused: why }, current.hash, 'was refused by the node')
      const tx = await signFiller(slot, fees, outcome)
      logger.warn(`tx ${current.hash} (nonce ${nonce}) was refused by the node (${why}) while later txs of its batch were accepted; filled its nonce with a 0-value transfer, tx ${tx.hash}`)
    },
    /**
     * One round; RPC failures end it early (the next round tries again). What decides a
     * slot's fate is read as of one block: the head N, the key's nonce at block N (not at
     * `latest`, which may have moved on), then N and the receipts together in one batch
     * (lookupAt): a slot is called `foreign` only when a node that has block N holds no
     * receipt of its txs, never from one node's nonce and another's receipts, and only
     * when an earlier look, at a lower head or `foreignAfterMs` before, found the same.
     */
    async tick(): Promise<void> {
      // The slots the batch sender still holds (signed, their broadcast not answered) are its own.
      const slots = journal.pending(slotsPerRound).filter((slot) => !life.held(slot.nonce))
      if (slots.length === 0) return suspects.clear()
      const { at, nonce: latest } = await reads.nonceAtHead(account.address)
      const next = journal.nextNonce()
      if (next !== undefined && latest > next) options.keyGuard?.report(`the key's nonce is ${latest} at block ${at}, past the ${next} this relayer's journal handed out`)
      // A receipt watcher that fell behind (receipts served late, the RPC down) leaves mined
      // slots to this round. When more of them are left than a round reads, the round reads
      // on: up to `lookedPerRound` below the key's nonce, looked up in one batch, and the
      // first `slotsPerRound` from it on, so that the slots the node may lack (every later
      // order waits behind the first) are sent again now, not after the backlog.
      const round =
        slots.length === slotsPerRound && slots.at(-1)!.nonce < latest
          ? [...journal.pending(lookedPerRound).filter((slot) => slot.nonce < latest), ...journal.pendingFrom(latest, slotsPerRound)].filter((slot) => !life.held(slot.nonce))
          : slots
      for (const nonce of suspects.keys()) if (!round.some((slot) => slot.nonce === nonce)) suspects.delete(nonce)
      // A tx sent moments ago is the receipt watcher's to find in its next block.
      const due = round.filter((slot) => Date.now() - slot.sentAt >= options.reviveAfterMs)
      const taken = due.filter((slot) => slot.nonce < latest)
      if (taken.length > 0) {
        // The earliest suspicion's head, read again in the same batch: is it still part of the chain?
        const firstAt = taken.reduce<bigint | undefined>((low, slot) => {
          const first = suspects.get(slot.nonce)
          return first && first.at <= at && (low === undefined || first.at < low) ? first.at : low
        }, undefined)
        const looked = await lookups.lookupAt(taken, at, firstAt)
        // Whether the first look's head is still the chain's: a reorg between two looks (which may put
        // another block at the same number) means the first looked at a chain that is gone.
        const sameChain = (first: { at: bigint; hash: Hex }, head: Hex, earlierHash: Hex | undefined) =>
          first.at === at ? head === first.hash : first.at < at && first.at === firstAt && earlierHash === first.hash
        if (!looked.lagging) for (const nonce of looked.unmined) {
          const first = suspects.get(nonce)
          if (!first || !sameChain(first, looked.hash, looked.earlierHash)) {
            suspects.set(nonce, { at, hash: looked.hash, time: Date.now() })
            continue
          }
          if (first.at === at && Date.now() - first.time < foreignAfterMs) continue
          suspects.delete(nonce)
          const slot = taken.find((each) => each.nonce === nonce)!
          const message = `not settled: nonce ${nonce} of the relayer's key was taken by a transaction this relayer did not send (another process is signing with the same key); retry`
          life.taken(nonce, message)
          logger.warn(`nonce ${nonce} (tx ${slot.txHash}) was taken by a transaction not in this relayer's journal: another process is signing with the same key; run one relayer process per gas key`)
          options.keyGuard?.report(`nonce ${nonce} was taken by a transaction this relayer's journal does not hold`)
        }
      }
      for (const slot of due) if (slot.nonce >= latest) await revive(slot, latest, at)
    },
  }
}
