import type { Hex } from 'viem'
import type { Journal, JournalReads, JournalSlot, NewSlot, SignedTx, SlotResolution } from '../journal/index.ts'

/**
 * The states of a nonce's slot (docs/relayer-safety.md draws them):
 * - `signed`: its tx is signed and on disk, and the batch sender holds it until the node
 *   answers its broadcast; no one else sends or drops it meanwhile;
 * - `pending`: the node took its tx, or may have (no answer, a restart, a reorg that took
 *   it out): the nonce keeper sees it through, sending it again as signed, replacing it or
 *   filling its nonce, until a tx of it is mined;
 * - `mined`: one of its txs is in a block (its outcome `settled`, `reverted` or `filled`);
 * - `confirmed`: that block is RELAYER_CONFIRMATIONS deep and still the chain's: final;
 * - `foreign`: a tx this journal does not hold took the nonce (another process on the key): final.
 */
export type SlotState = 'signed' | 'pending' | 'mined' | 'confirmed' | 'foreign'

/** Every move a slot can make: the states it may start from, where it goes (`dropped`: the slot is forgotten, its nonce free), and who makes it. */
export const slotMoves = {
  recorded: { from: [], to: 'signed', by: 'batch sender', what: 'signed and written, before it is broadcast' },
  sent: { from: ['signed'], to: 'pending', by: 'batch sender', what: 'the node took it' },
  unanswered: { from: ['signed'], to: 'pending', by: 'batch sender', what: 'the node did not answer: it may hold the tx' },
  dropped: { from: ['signed'], to: 'dropped', by: 'batch sender', what: 'refused by the node, not sent, or not on disk' },
  replaced: { from: ['signed', 'pending'], to: 'pending', by: 'nonce keeper', what: 'a replacement or a filler at higher fees' },
  resent: { from: ['pending'], to: 'pending', by: 'nonce keeper', what: 'the same signed tx again, or seen in the pool' },
  mined: { from: ['signed', 'pending'], to: 'mined', by: 'receipt watcher', what: 'a tx of it is in a block' },
  taken: { from: ['pending'], to: 'foreign', by: 'nonce keeper', what: 'a tx this journal does not hold took the nonce' },
  confirmed: { from: ['mined'], to: 'confirmed', by: 'receipt watcher', what: 'its block is deep enough and still the chain’s' },
  moved: { from: ['mined', 'confirmed'], to: 'mined', by: 'receipt watcher', what: 'a reorg mined it in another block' },
  reorged: { from: ['mined', 'confirmed'], to: 'pending', by: 'receipt watcher', what: 'a reorg took its tx out of the chain' },
} as const satisfies Record<string, { from: readonly SlotState[]; to: SlotState | 'dropped'; by: string; what: string }>

export type SlotMove = keyof typeof slotMoves

/** The slot-state diagram (Mermaid), drawn from `slotMoves`: docs/relayer-safety.md shows it. */
export function slotDiagram(): string {
  const lines = ['stateDiagram-v2', '  [*] --> signed: recorded']
  for (const [move, { from, to }] of Object.entries(slotMoves)) {
    for (const state of from) lines.push(`  ${state} --> ${to === 'dropped' ? '[*]' : to}: ${move}`)
  }
  lines.push('  confirmed --> [*]', '  foreign --> [*]')
  return lines.join('\n')
}

/** The state of a slot the journal holds: `held` when the batch sender still holds it. */
export function stateOf(slot: Pick<JournalSlot, 'status' | 'confirmed'>, held: boolean): SlotState {
  if (slot.status === 'pending') return held ? 'signed' : 'pending'
  if (slot.status === 'foreign') return 'foreign'
  return slot.confirmed ? 'confirmed' : 'mined'
}

/** Whether `move` may start from `state`. */
export function canMove(state: SlotState, move: SlotMove): boolean {
  return (slotMoves[move].from as readonly SlotState[]).includes(state)
}

/**
 * The one place a slot moves (`slotMoves`): the batch sender, the receipt watcher and the
 * nonce keeper each ask it, and it writes the move to the journal, the one store of the
 * slots. It keeps what is not on disk: which slots the batch sender holds (`signed`), and
 * who waits for a slot's outcome. A move from a state the table does not allow is left
 * out (two looks may find the same tx mined; the second changes nothing).
 */
export function createSlotLife(journal: Journal) {
  const held = new Set<number>()
  // Each waiter is handed its slot as the journal holds it once resolved (undefined: it reads it itself).
  const waiters = new Map<number, Set<(slot?: JournalSlot) => void>>()

  const state = (slot: JournalSlot) => stateOf(slot, held.has(slot.nonce))
  /** The nonces among `nonces` whose slot may make `move` (`read`: the slots, when the caller has just read them). */
  function allowed(move: SlotMove, nonces: readonly number[], read?: ReadonlyMap<number, JournalSlot>): number[] {
    const slots = read ?? journal.slots(nonces)
    return nonces.filter((nonce) => {
      const slot = slots.get(nonce)
      return slot !== undefined && canMove(state(slot), move)
    })
  }
  function wake(nonces: readonly number[]) {
    const waited = nonces.filter((nonce) => waiters.has(nonce))
    const slots = waited.length > 0 ? journal.slots(waited) : new Map<number, JournalSlot>()
    for (const nonce of waited) {
      const set = waiters.get(nonce)
      waiters.delete(nonce)
      for (const each of set ?? []) each(slots.get(nonce))
    }
  }

  return {
    journal: journal as JournalReads,
    state,
    /** Whether the batch sender holds the nonce's slot (signed, its broadcast not answered yet). */
    held: (nonce: number) => held.has(nonce),
    /**
     * `recorded`: written in one durable commit; the batch sender holds them until `sent`,
     * `unanswered` or `dropped`. A write that fails, or is committed but not known to be on
     * disk, leaves nothing: the slots are dropped at once (nothing of them was sent) and it throws.
     */
    async recorded(slots: NewSlot[]): Promise<void> {
      const added = slots.map((slot) => slot.nonce).filter((nonce) => !held.has(nonce))
      for (const nonce of added) held.add(nonce)
      // The commit is made at once (a failed one wrote nothing); the promise is its flush to disk.
      let committed = false
      try {
        const onDisk = journal.record(slots)
        committed = true
        await onDisk
      } catch (error) {
        try {
          if (committed) journal.reject(slots.map((slot) => slot.nonce))
        } catch {}
        for (const nonce of added) held.delete(nonce)
        throw error
      }
    },
    /** `sent`: the node took these txs; the receipt watcher and the nonce keeper see them through. */
    sent(nonces: readonly number[]) {
      for (const nonce of nonces) held.delete(nonce)
    },
    /** `unanswered`: the node did not say; the nonce keeper looks at them in its next round (sends them again as signed if the node lacks them). */
    unanswered(nonces: readonly number[]) {
      for (const nonce of allowed('unanswered', nonces)) journal.resent(nonce, 0)
      for (const nonce of nonces) held.delete(nonce)
    },
    /** `dropped`: refused by the node, not sent (the nonces before them moved), or not known to be on disk: forgotten, their nonces free. */
    dropped(nonces: readonly number[]) {
      journal.reject(allowed('dropped', nonces))
      for (const nonce of nonces) held.delete(nonce)
    },
    /** `replaced`: a replacement or filler, on disk before it is sent. */
    async replaced(tx: SignedTx): Promise<void> {
      if (allowed('replaced', [tx.nonce]).length === 0) throw new Error(`nonce ${tx.nonce} cannot take a replacement: its slot is ${journal.slot(tx.nonce)?.status ?? 'gone'}`)
      await journal.replace(tx)
    },
    /** `resent`: sent again as signed, or seen in the node's pool: the keeper's next look at it waits its turn. */
    resent(nonce: number) {
      if (allowed('resent', [nonce]).length > 0) journal.resent(nonce)
    },
    /**
     * `mined`: what the mined txs mean, in one commit; their waiters are woken. `read`: the
     * slots as the caller read them for this look (the commit still changes only a slot
     * that is pending when it runs).
     */
    mined(results: SlotResolution[], read?: ReadonlyMap<number, JournalSlot>) {
      const movable = new Set(allowed('mined', results.map(({ nonce }) => nonce), read))
      const moving = results.filter(({ nonce }) => movable.has(nonce))
      journal.resolveAll(moving)
      for (const { nonce } of moving) held.delete(nonce)
      wake(moving.map(({ nonce }) => nonce))
    },
    /** `taken`: a tx this journal does not hold took the nonce; its waiters are told. */
    taken(nonce: number, message: string) {
      if (allowed('taken', [nonce]).length === 0) return
      journal.resolve(nonce, { status: 'foreign', outcome: JSON.stringify({ message }) })
      wake([nonce])
    },
    /** `confirmed`: their blocks are deep enough and still the chain's. */
    confirmed(nonces: readonly number[]) {
      journal.confirm(allowed('confirmed', nonces))
    },
    /** `moved`: a reorg kept the tx, in another block. */
    moved(nonce: number, blockNumber: bigint, blockHash: Hex) {
      if (allowed('moved', [nonce]).length > 0) journal.moveBlock(nonce, blockNumber, blockHash)
    },
    /** `reorged`: a reorg took their txs out; pending again, for the nonce keeper to send again as signed or fill. */
    reorged(nonces: readonly number[]) {
      journal.reopen(allowed('reorged', nonces))
    },
    /** The slot once it is resolved, or as it stands after `timeoutMs`. */
    async outcome(nonce: number, timeoutMs: number): Promise<JournalSlot | undefined> {
      const now = journal.slot(nonce)
      if (!now || now.status !== 'pending') return now
      let timer: ReturnType<typeof setTimeout> | undefined
      let given: JournalSlot | undefined
      let woken!: () => void
      const wakeUp = new Promise<void>((resolve) => (woken = resolve))
      const waiter = (slot?: JournalSlot) => {
        given = slot
        woken()
      }
      let set = waiters.get(nonce)
      if (!set) waiters.set(nonce, (set = new Set()))
      set.add(waiter)
      await Promise.race([wakeUp, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))])
      clearTimeout(timer)
      set.delete(waiter)
      return given ?? journal.slot(nonce)
    },
  }
}

export type SlotLife = ReturnType<typeof createSlotLife>
