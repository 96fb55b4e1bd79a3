import { Database } from 'bun:sqlite'
import { closeSync, fdatasync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Address, Hex } from 'viem'
import { OrderRelayError } from '../../errors/index.ts'
import { parseEip1559 } from './parseEip1559.ts'
import { createAnswerCodes } from './answerCodes.ts'
import { upgradeJournal } from './upgrades.ts'
import { takeLock } from './lock.ts'
import { journalVersion, refuseLaterVersion, stampJournalVersion } from './schemaVersion.ts'
import { laterIndexes, schema, selectSlots, type SlotRow, slotOf, type TxRow, txOf } from './tables.ts'
import type { JournalSlot, JournalTx, NewSlot, RevertRecord, SignedTx, SlotResolution, JournalObserver } from './types.ts'

/** A journal opened for another chain or key. */
export class JournalMismatchError extends OrderRelayError<'JOURNAL_MISMATCH'> {
  override name = 'JournalMismatchError'
  constructor(message: string) {
    super('JOURNAL_MISMATCH', message)
  }
}

/**
 * The relayer's journal (docs/relayer-safety.md): every transaction the gas key
 * signs, written to SQLite before it is broadcast, and what became of it. It is
 * the one store of the key's pending transactions: keyed by nonce, indexed by
 * orderHash. WAL; a signed tx is on disk before it is broadcast (it survives a crash
 * of the process or the machine), a whole batch in one commit and one fsync of the
 * WAL; what became of it is written without an fsync of its own (it survives a crash
 * of the process, and the chain holds it anyway), the outcomes found in one look at
 * the chain in one commit. The code a client was answered is written behind: with the
 * next commit the journal makes anyway (a batch, a look's outcomes), or on its own
 * within `answerDelayMs` when none comes; reads see it at once (from memory until it is
 * written). A crash in between loses only which code the last answers were, so a
 * replay of such an order is answered as if its first answer had not gone out.
 * Holds the process lock, an exclusive lock on a file beside it that the kernel releases with the process, from open to `close` (see lock.ts).
 * @throws JournalLockedError when another live process holds it; JournalMismatchError for another chain or key; JournalVersionError for a file a later version wrote
 */
export function openJournal(
  path: string,
  owner: { chainId: number; address: Address },
  options: {
    /** How long an answer code waits for another commit to ride (default 200 ms). */
    answerDelayMs?: number
    /**
     * With `path` ':memory:' only: this in-memory database rather than a new one. The
     * simulator's (src/simulator/): its bytes outlive a simulated crash, and a commit is
     * on "disk" as soon as it is made.
     */
    database?: Database
  } = {},
) {
  if (options.database && path !== ':memory:') throw new Error('openJournal: a given database is for path :memory: only')
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  // The process lock first: a second process is refused before it reads anything.
  const unlock = takeLock(path)
  const db = options.database ?? new Database(path, { create: true, strict: true })
  db.exec('PRAGMA busy_timeout = 5000')
  let version: number
  try {
    version = refuseLaterVersion(db, path)
  } catch (error) {
    unlock()
    db.close()
    throw error
  }
  db.exec('PRAGMA journal_mode = WAL')
  // NORMAL: a commit survives a crash of the process, not of the machine. The writes
  // that must survive anything (a tx before it is broadcast) are followed by an fsync
  // of the WAL: see `durable`.
  db.exec('PRAGMA synchronous = NORMAL')
  db.exec(schema)
  const ownerText = `${owner.chainId}:${owner.address.toLowerCase()}`
  const stored = db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'owner'").get()
  if (stored && stored.value !== ownerText) {
    unlock()
    db.close()
    throw new JournalMismatchError(`RELAYER_DB ${path} belongs to chain:key ${stored.value}, not ${ownerText}; give each chain and gas key its own journal`)
  }
  if (!stored) db.query("INSERT INTO meta (key, value) VALUES ('owner', ?)").run(ownerText)
  // The version says what to upgrade: a file stamped at this one has nothing left to change.
  const upgraded: string[] = []
  try {
    upgraded.push(...upgradeJournal(db, version))
    if (version < journalVersion) stampJournalVersion(db)
    db.exec(laterIndexes)
  } catch (error) {
    unlock()
    db.close()
    throw error
  }

  const answers = createAnswerCodes(db, options.answerDelayMs ?? 200)
  /**
   * The newest `at` among the reverts this journal holds: read once here (after the
   * upgrades, which may write some), raised by `addRevert`, the one other writer of the
   * table, and left as it is by a prune (so it is never below the newest one kept). Every
   * order's cool-down asks for the reverts since a time, three reads on SQLite, where
   * almost always none was recorded since: `reverts` then answers none without reading.
   */
  let newestRevertAt = db.query<{ at: number | null }, []>('SELECT MAX(at) AS at FROM reverts').get()?.at ?? Number.NEGATIVE_INFINITY
  const observers: JournalObserver[] = []
  const insertSlot = db.query(
    `INSERT INTO slots (nonce, order_hash, consumer, adapter, pay_token, status, tx_hash, sent_at, fee_amount, fee_value_wei)
     VALUES ($nonce, $orderHash, $consumer, $adapter, $payToken, 'pending', $txHash, $sentAt, $feeAmount, $feeValueWei)`,
  )
  /** A slot's fee as a resolution returns it. */
  type SlotFee = { pay_token: string | null; fee_amount: string | null; fee_value_wei: string | null }
  /** Whether the slot's order was paid in a token the relayer could not value (relayed within the unpriced budget). */
  const unpricedAt = (nonce: number): boolean =>
    (db.query<{ unpriced: number }, [number]>('SELECT (fee_amount IS NOT NULL AND fee_value_wei IS NULL) AS unpriced FROM slots WHERE nonce = ?').get(nonce)?.unpriced ?? 0) === 1
  const insertTx = db.query(
    `INSERT OR IGNORE INTO txs (hash, nonce, raw, kind, signed_at)
     VALUES ($hash, $nonce, $raw, $kind, $signedAt)`,
  )
  /**
   * The contract each tx at a pending nonce calls, by lower-case hash: what a tx calls never
   * changes, and `pendingCallees` runs at every look at a new block, where reading and
   * parsing every pending raw again took ~5 % of the relayer's main thread. Filled as txs
   * are written (up to `calleesKept`, so that it stays small where nothing reads it) or
   * read once, and trimmed to the txs the last call found pending.
   */
  let calleeByHash = new Map<string, Hex>()
  const calleesKept = 4_096
  /**
   * Writes a signed tx; its fees and call are read back from `raw` (refused when they cannot
   * be, or it is for another nonce). Returns the most it can cost the key: gas limit × fee cap.
   */
  const addTx = (tx: SignedTx): bigint => {
    const signed = parseEip1559(tx.raw)
    if (signed.nonce !== tx.nonce) throw new Error(`journal: tx ${tx.hash} is signed at nonce ${signed.nonce}, not ${tx.nonce}`)
    const hash = tx.hash.toLowerCase()
    insertTx.run({ hash, nonce: tx.nonce, raw: tx.raw, kind: tx.kind, signedAt: tx.signedAt })
    if (calleeByHash.size < calleesKept) calleeByHash.set(hash, signed.to.toLowerCase() as Hex)
    return signed.gas * signed.maxFeePerGas
  }
  const walPath = path === ':memory:' ? undefined : `${path}-wal`
  // The WAL stays the same file while the database is open (SQLite rewinds it after a
  // checkpoint, and removes it only when the last connection closes), so one descriptor
  // serves every sync.
  let walFd: number | undefined
  /**
   * Resolves once every write committed so far is on disk: one fdatasync of the WAL
   * (what `synchronous=FULL` does at each commit), run off the event loop. A FULL
   * commit blocked the whole relayer (answers, receipts) for the fsync, which takes
   * tens of milliseconds on a busy disk. One call on a kept descriptor: an open, a sync
   * and a close each waited for a turn of a busy event loop, and cost the journal a
   * quarter of its throughput.
   */
  const durable = (): Promise<void> => {
    if (!walPath) return Promise.resolve()
    try {
      walFd ??= openSync(walPath, 'r')
    } catch (error) {
      return Promise.reject(error)
    }
    const fd = walFd
    return new Promise((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())))
  }
  const recordAll = db.transaction((slots: NewSlot[]): bigint[] => {
    const worst: bigint[] = []
    for (const slot of slots) {
      // A code still waiting at this nonce was a dropped slot's: never the new one's.
      answers.forget(slot.nonce)
      insertSlot.run({
        nonce: slot.nonce,
        orderHash: slot.orderHash,
        consumer: slot.consumer,
        adapter: slot.adapter,
        payToken: slot.payToken,
        txHash: slot.tx.hash.toLowerCase(),
        sentAt: slot.tx.signedAt,
        feeAmount: slot.feeAmount == null ? null : slot.feeAmount.toString(),
        feeValueWei: slot.feeValueWei == null ? null : slot.feeValueWei.toString(),
      })
      worst.push(addTx(slot.tx))
    }
    answers.writeWaiting()
    return worst
  })
  const replaceTx = db.transaction((tx: SignedTx): bigint => {
    const worst = addTx(tx)
    db.query('UPDATE slots SET tx_hash = ?, sent_at = ? WHERE nonce = ?').run(tx.hash.toLowerCase(), tx.signedAt, tx.nonce)
    answers.writeWaiting()
    return worst
  })
  // The slot's fee comes back with the change: what the observers are told of it needs no read of its own.
  const resolveSlot = db.query<SlotFee, Record<string, string | number | null>>(
    `UPDATE slots SET status = $status, tx_hash = COALESCE(lower($txHash), tx_hash), block_number = $block, block_hash = $blockHash, outcome = COALESCE($outcome, outcome),
       mined_at = CASE WHEN $status = 'foreign' THEN mined_at ELSE $at END, spent_wei = COALESCE($spent, spent_wei), confirmed = CASE WHEN $status = 'foreign' THEN 1 ELSE 0 END
     WHERE nonce = $nonce AND status = 'pending'
     RETURNING pay_token, fee_amount, fee_value_wei`,
  )
  /** The slots that were pending and are resolved now, each with its fee. */
  const resolveAll = db.transaction((results: SlotResolution[], at: number): Array<{ result: SlotResolution; fee: SlotFee }> => {
    const resolved: Array<{ result: SlotResolution; fee: SlotFee }> = []
    for (const result of results) {
      const fee = resolveSlot.get({
        nonce: result.nonce,
        status: result.status,
        txHash: result.txHash ?? null,
        block: result.blockNumber === undefined ? null : Number(result.blockNumber),
        blockHash: result.blockHash?.toLowerCase() ?? null,
        outcome: result.outcome ?? null,
        at,
        spent: result.spentWei === undefined ? null : result.spentWei.toString(),
      })
      if (fee) resolved.push({ result, fee })
    }
    answers.writeWaiting()
    return resolved
  })
  /** Tells the observers which slots were resolved and what that means for spending and earning. */
  const noteResolved = (resolved: ReadonlyArray<{ result: SlotResolution; fee: SlotFee }>, at: number) => {
    if (observers.length === 0) return
    for (const { result, fee } of resolved) {
      for (const observer of observers) observer.resolved?.(result.nonce)
      if (result.status === 'foreign') for (const observer of observers) observer.released?.(result.nonce)
      else if (result.spentWei !== undefined) {
        const unpriced = fee.fee_amount !== null && fee.fee_value_wei === null
        for (const observer of observers) observer.spent?.(result.nonce, result.spentWei, at, unpriced)
      }
      if (result.status !== 'settled') continue
      if (!fee.pay_token || fee.fee_amount === null) continue
      for (const observer of observers) observer.earned?.(fee.pay_token as Address, BigInt(fee.fee_amount), fee.fee_value_wei === null ? null : BigInt(fee.fee_value_wei))
    }
  }
  // When the slot was seen mined, and whether its order was unpriced, come back with the change.
  const setCost = db.query<{ mined_at: number | null; unpriced: number }, [string, number]>(
    'UPDATE slots SET spent_wei = ? WHERE nonce = ? RETURNING mined_at, (fee_amount IS NOT NULL AND fee_value_wei IS NULL) AS unpriced',
  )
  const setCosts = db.transaction((costs: ReadonlyArray<{ nonce: number; wei: bigint }>) => costs.map(({ nonce, wei }) => setCost.get(wei.toString(), nonce) ?? undefined))
  const dropSlots = db.transaction((nonces: number[]): number[] => {
    const dropped: number[] = []
    for (const nonce of nonces) {
      answers.forget(nonce)
      // A slot's txs go with it, never from under a slot that stays (its call is in them).
      if (db.query("DELETE FROM slots WHERE nonce = ? AND status = 'pending'").run(nonce).changes > 0) {
        db.query('DELETE FROM txs WHERE nonce = ?').run(nonce)
        dropped.push(nonce)
      }
    }
    return dropped
  })

  return {
    path,
    /** What upgrading a journal of an earlier schema version changed at this open (empty when nothing). */
    upgraded,
    /** The nonce after the highest one this journal holds, if any. */
    nextNonce(): number | undefined {
      const row = db.query<{ top: number | null }, []>('SELECT MAX(nonce) AS top FROM slots').get()
      return row?.top === null || row?.top === undefined ? undefined : row.top + 1
    },
    /** The highest nonce the journal saw mined (settled, reverted, filled or taken), if any. */
    lastMinedNonce(): number | undefined {
      // Walks the nonces down from the top (the pending ones are the last few), where MAX() with
      // this condition read every slot the journal ever held.
      const row = db.query<{ nonce: number }, []>("SELECT nonce FROM slots WHERE status != 'pending' ORDER BY nonce DESC LIMIT 1").get()
      return row?.nonce
    },
    /**
     * Writes slots with their first signed txs in one commit, and resolves once it is on
     * disk (group commit: one fsync for the batch). Throws at once when the write fails.
     */
    record(slots: NewSlot[]): Promise<void> {
      if (slots.length === 0) return Promise.resolve()
      const worst = recordAll(slots)
      for (const [i, slot] of slots.entries()) {
        const unpriced = slot.feeAmount != null && slot.feeValueWei == null
        for (const observer of observers) observer.reserved?.(slot.nonce, worst[i]!, unpriced)
      }
      return durable()
    },
    /** A replacement or filler signed at an existing nonce, on disk before it is sent; it becomes the slot's current tx, and its call the slot's. */
    replace(tx: SignedTx): Promise<void> {
      const worst = replaceTx(tx)
      if (observers.length > 0) {
        const unpriced = unpricedAt(tx.nonce)
        for (const observer of observers) observer.reserved?.(tx.nonce, worst, unpriced)
      }
      return durable()
    },
    /** The node refused these outright (never pooled): forget them, their nonces are free. */
    reject(nonces: number[]) {
      const dropped = dropSlots(nonces)
      for (const nonce of dropped) for (const observer of observers) observer.released?.(nonce)
    },
    /** A tx at this nonce was sent again as signed. */
    resent(nonce: number, at = Date.now()) {
      db.query('UPDATE slots SET sent_at = ? WHERE nonce = ?').run(at, nonce)
    },
    /** What became of a pending slot. */
    resolve(nonce: number, result: Omit<SlotResolution, 'nonce'>) {
      const at = Date.now()
      noteResolved(resolveAll([{ nonce, ...result }], at), at)
    },
    /** What became of several pending slots, in one commit (the txs one look at the chain found mined). */
    resolveAll(results: SlotResolution[]) {
      if (results.length === 0) return
      const at = Date.now()
      noteResolved(resolveAll(results, at), at)
    },
    /**
     * The mined slots not yet confirmed whose block is at or below `upTo`, by block number:
     * the ones deep enough to be checked against the chain and confirmed.
     */
    unconfirmed(upTo: bigint, limit = 1_000): Array<{ nonce: number; blockNumber: bigint; blockHash: Hex | null; txHash: Hex }> {
      return db
        .query<{ nonce: number; block_number: number; block_hash: string | null; tx_hash: string }, [number, number]>(
          "SELECT nonce, block_number, block_hash, tx_hash FROM slots WHERE confirmed = 0 AND status != 'pending' AND block_number <= ? ORDER BY block_number LIMIT ?",
        )
        .all(Number(upTo), limit)
        .map((row) => ({ nonce: row.nonce, blockNumber: BigInt(row.block_number), blockHash: row.block_hash as Hex | null, txHash: row.tx_hash as Hex }))
    },
    /** Mined slots not yet confirmed (the receipt watcher keeps looking while there are any). */
    unconfirmedCount(): number {
      return db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM slots WHERE confirmed = 0 AND status != 'pending'").get()!.n
    },
    /** Mined slots whose block is above `blockNumber` (a reorg's fork point), confirmed or not. */
    minedAbove(blockNumber: bigint): Array<{ nonce: number; blockNumber: bigint; txHash: Hex; status: 'settled' | 'reverted' | 'filled' }> {
      return db
        .query<{ nonce: number; block_number: number; tx_hash: string; status: 'settled' | 'reverted' | 'filled' }, [number]>(
          "SELECT nonce, block_number, tx_hash, status FROM slots WHERE status IN ('settled', 'reverted', 'filled') AND block_number > ?",
        )
        .all(Number(blockNumber))
        .map((row) => ({ nonce: row.nonce, blockNumber: BigInt(row.block_number), txHash: row.tx_hash as Hex, status: row.status }))
    },
    /** These slots' blocks are deep enough and still the chain's: they are final. */
    confirm(nonces: readonly number[]) {
      if (nonces.length > 0) db.query('UPDATE slots SET confirmed = 1 WHERE nonce IN (SELECT value FROM json_each(?))').run(JSON.stringify(nonces))
    },
    /** A slot's tx was mined in another block than recorded (a reorg that kept it): its block is this one. */
    moveBlock(nonce: number, blockNumber: bigint, blockHash: Hex) {
      db.query('UPDATE slots SET block_number = ?, block_hash = ?, confirmed = 0 WHERE nonce = ?').run(Number(blockNumber), blockHash.toLowerCase(), nonce)
      for (const observer of observers) observer.moved?.(nonce)
    },
    /**
     * A reorg took these slots' mined txs out of the chain: each is pending again (its txs
     * kept, to be sent again or its nonce filled by the nonce keeper at once), and what it
     * was counted as costing and earning is taken back.
     */
    reopen(nonces: readonly number[]) {
      const reopened = db.transaction((list: readonly number[]) => {
        const rows: SlotRow[] = []
        for (const nonce of list) {
          const row = db.query<SlotRow, [number]>(`${selectSlots} WHERE slots.nonce = ?`).get(nonce)
          if (!row || row.status === 'pending' || row.status === 'foreign') continue
          db.query(
            "UPDATE slots SET status = 'pending', block_number = NULL, block_hash = NULL, outcome = NULL, mined_at = NULL, spent_wei = NULL, confirmed = 0, sent_at = 0 WHERE nonce = ?",
          ).run(nonce)
          rows.push(row)
        }
        return rows
      })(nonces)
      for (const row of reopened) {
        const signed = parseEip1559(row.raw as Hex)
        for (const observer of observers) {
          observer.reopened?.({
            nonce: row.nonce,
            worstWei: signed.gas * signed.maxFeePerGas,
            unpriced: row.fee_amount !== null && row.fee_value_wei === null,
            spentWei: row.spent_wei === null ? null : BigInt(row.spent_wei),
            minedAt: row.mined_at,
            payToken: row.pay_token as Address | null,
            feeAmount: row.fee_amount === null ? null : BigInt(row.fee_amount),
            feeValueWei: row.fee_value_wei === null ? null : BigInt(row.fee_value_wei),
            settled: row.status === 'settled',
          })
        }
      }
    },
    /** What mined txs cost the key (from their receipts), in one commit. */
    setCosts(costs: ReadonlyArray<{ nonce: number; wei: bigint }>) {
      if (costs.length === 0) return
      const rows = setCosts(costs)
      for (const [i, { nonce, wei }] of costs.entries()) {
        const row = rows[i]
        for (const observer of observers) observer.spent?.(nonce, wei, row?.mined_at ?? Date.now(), row?.unpriced === 1)
      }
    },
    /**
     * Follows the slots from now on (JournalObserver), after being handed what the journal
     * holds: every pending slot's reservation (its txs' highest gas limit × fee cap), every
     * cost of a tx seen mined since `since`, and every settled order's fee.
     */
    observe(observer: JournalObserver, since: number) {
      if (observer.earned) {
        for (const row of db
          .query<{ pay_token: string; fee_amount: string; fee_value_wei: string | null }, []>(
            "SELECT pay_token, fee_amount, fee_value_wei FROM slots WHERE status = 'settled' AND fee_amount IS NOT NULL AND pay_token IS NOT NULL",
          )
          .iterate()) {
          observer.earned(row.pay_token as Address, BigInt(row.fee_amount), row.fee_value_wei === null ? null : BigInt(row.fee_value_wei))
        }
      }
      const pendingRows = db
        .query<{ nonce: number; raw: string; unpriced: number }, []>(
          "SELECT slots.nonce AS nonce, txs.raw AS raw, (slots.fee_amount IS NOT NULL AND slots.fee_value_wei IS NULL) AS unpriced FROM slots JOIN txs ON txs.nonce = slots.nonce WHERE slots.status = 'pending'",
        )
        .all()
      for (const row of pendingRows) {
        const signed = parseEip1559(row.raw as Hex)
        observer.reserved?.(row.nonce, signed.gas * signed.maxFeePerGas, row.unpriced === 1)
      }
      const spentRows = db
        .query<{ nonce: number; spent_wei: string | null; mined_at: number; unpriced: number; raw: string | null }, [number]>(
          `SELECT nonce, spent_wei, mined_at, (fee_amount IS NOT NULL AND fee_value_wei IS NULL) AS unpriced,
             CASE WHEN spent_wei IS NULL THEN (SELECT raw FROM txs WHERE txs.hash = slots.tx_hash) END AS raw
           FROM slots WHERE mined_at > ? AND status != 'foreign'`,
        )
        .all(since)
      for (const row of spentRows) {
        if (row.spent_wei !== null) observer.spent?.(row.nonce, BigInt(row.spent_wei), row.mined_at, row.unpriced === 1)
        else if (row.raw !== null) {
          // Mined, its receipt not read before the last stop: counted at its worst case until it is.
          const signed = parseEip1559(row.raw as Hex)
          observer.reserved?.(row.nonce, signed.gas * signed.maxFeePerGas, row.unpriced === 1)
        }
      }
      observers.push(observer)
    },
    /** The mined slots whose cost is not known yet (their receipts not read), lowest nonce first. */
    uncosted(limit = 256): Array<{ nonce: number; txHash: Hex }> {
      return db
        .query<{ nonce: number; tx_hash: string }, [number]>("SELECT nonce, tx_hash FROM slots WHERE spent_wei IS NULL AND mined_at IS NOT NULL AND status != 'foreign' ORDER BY nonce LIMIT ?")
        .all(limit)
        .map((row) => ({ nonce: row.nonce, txHash: row.tx_hash as Hex }))
    },
    /** Replaces the stored outcome (a revert reason found later). */
    setOutcome(nonce: number, outcome: string) {
      db.query('UPDATE slots SET outcome = ? WHERE nonce = ?').run(outcome, nonce)
    },
    /** The code a client was answered for this slot. */
    answered(nonce: number, code: string) {
      answers.set(nonce, code)
    },
    slot(nonce: number): JournalSlot | undefined {
      const row = db.query<SlotRow, [number]>(`${selectSlots} WHERE slots.nonce = ?`).get(nonce)
      return row ? answers.overlay(slotOf(row)) : undefined
    },
    /** The latest slot that carries this order. */
    byOrder(orderHash: Hex): JournalSlot | undefined {
      // The highest nonce picked here: `ORDER BY nonce DESC LIMIT 1` made SQLite take ~10× as
      // long for the usual answer, no slot at all (every new order asks).
      let latest: SlotRow | undefined
      for (const row of db.query<SlotRow, [string]>(`${selectSlots} WHERE slots.order_hash = ?`).all(orderHash.toLowerCase())) {
        if (!latest || row.nonce > latest.nonce) latest = row
      }
      return latest ? answers.overlay(slotOf(latest)) : undefined
    },
    /** The slots at these nonces, by nonce (one read for a look's worth of mined txs). */
    slots(nonces: readonly number[]): Map<number, JournalSlot> {
      const found = new Map<number, JournalSlot>()
      if (nonces.length === 0) return found
      for (const row of db.query<SlotRow, [string]>(`${selectSlots} WHERE slots.nonce IN (SELECT value FROM json_each(?))`).all(JSON.stringify(nonces))) {
        found.set(row.nonce, answers.overlay(slotOf(row)))
      }
      return found
    },
    /** The contracts the pending slots call (`to` and adapter), lower-case: where their txs' logs come from. */
    pendingCallees(): Hex[] {
      // Every tx signed at a pending nonce may be the one mined, a replaced one too.
      const hashes = db.query<{ hash: string }, []>("SELECT txs.hash FROM slots JOIN txs ON txs.nonce = slots.nonce WHERE slots.status = 'pending'").all()
      const callees = new Map<string, Hex>()
      for (const { hash } of hashes) {
        let callee = calleeByHash.get(hash)
        if (callee === undefined) {
          const row = db.query<{ raw: string }, [string]>('SELECT raw FROM txs WHERE hash = ?').get(hash)
          if (!row) continue
          callee = parseEip1559(row.raw as Hex).to.toLowerCase() as Hex
        }
        callees.set(hash, callee)
      }
      calleeByHash = callees
      const adapters = db.query<{ adapter: string }, []>("SELECT DISTINCT adapter FROM slots WHERE status = 'pending' AND adapter IS NOT NULL").all()
      return [...new Set([...callees.values(), ...adapters.map(({ adapter }) => adapter.toLowerCase() as Hex)])]
    },
    /** Every slot still pending, lowest nonce first. */
    pending(limit = 1_000_000): JournalSlot[] {
      return db.query<SlotRow, [number]>(`${selectSlots} WHERE slots.status = 'pending' ORDER BY slots.nonce LIMIT ?`).all(limit).map((row) => answers.overlay(slotOf(row)))
    },
    pendingCount(): number {
      return db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM slots WHERE status = 'pending'").get()!.n
    },
    /** Every tx signed at a nonce, oldest first. */
    txs(nonce: number): JournalTx[] {
      return db.query<TxRow, [number]>('SELECT * FROM txs WHERE nonce = ? ORDER BY signed_at, rowid').all(nonce).map(txOf)
    },
    /** The txs with these hashes that the journal holds, by lower-case hash (one read for a block's receipts). */
    txsByHash(hashes: readonly Hex[]): Map<Hex, JournalTx> {
      const found = new Map<Hex, JournalTx>()
      if (hashes.length === 0) return found
      const lower = hashes.map((hash) => hash.toLowerCase())
      for (const row of db.query<TxRow, [string]>('SELECT * FROM txs WHERE hash IN (SELECT value FROM json_each(?))').all(JSON.stringify(lower))) {
        found.set(row.hash as Hex, txOf(row))
      }
      return found
    },
    tx(hash: Hex): JournalTx | undefined {
      const row = db.query<TxRow, [string]>('SELECT * FROM txs WHERE hash = ?').get(hash.toLowerCase())
      return row ? txOf(row) : undefined
    },
    /** An order that passed simulation and reverted on chain, no settlement by another tx explaining it. */
    addRevert(record: RevertRecord) {
      newestRevertAt = Math.max(newestRevertAt, record.at)
      db.query('INSERT INTO reverts (at, consumer, adapter, pay_token, tx_hash) VALUES (?, ?, ?, ?, ?)').run(
        record.at,
        record.consumer.toLowerCase(),
        record.adapter?.toLowerCase() ?? null,
        record.payToken?.toLowerCase() ?? null,
        record.txHash,
      )
    },
    /** The latest `limit` reverts of orders from this consumer, adapter or pay token since `since`, newest first. */
    reverts(by: 'consumer' | 'adapter' | 'payToken', address: Address, since: number, limit: number): RevertRecord[] {
      if (newestRevertAt <= since) return []
      const column = by === 'payToken' ? 'pay_token' : by
      return db
        .query<{ at: number; consumer: string; adapter: string | null; pay_token: string | null; tx_hash: string }, [string, number, number]>(
          `SELECT * FROM reverts WHERE ${column} = ? AND at > ? ORDER BY at DESC LIMIT ?`,
        )
        .all(address.toLowerCase(), since, limit)
        .map((row) => ({ at: row.at, consumer: row.consumer as Address, adapter: row.adapter as Address | null, payToken: row.pay_token as Address | null, txHash: row.tx_hash as Hex }))
    },
    /**
     * Deletes what is older than `before` (ms since epoch) and not needed any more: slots
     * resolved before then (seen mined, or sent, before it), with their txs, and the reverts
     * kept for cool-downs. Pending slots stay whatever their age. In commits of `perCommit`
     * slots, yielding between them. Returns how many slots and reverts went.
     */
    async prune(before: number, perCommit = 5_000): Promise<{ slots: number; reverts: number }> {
      let slots = 0
      const pruneSome = db.transaction((limit: number): number => {
        const nonces = db
          .query<{ nonce: number }, [number, number]>("SELECT nonce FROM slots WHERE status != 'pending' AND COALESCE(mined_at, sent_at) < ? ORDER BY nonce LIMIT ?")
          .all(before, limit)
          .map((row) => row.nonce)
        if (nonces.length === 0) return 0
        const list = JSON.stringify(nonces)
        db.query('DELETE FROM txs WHERE nonce IN (SELECT value FROM json_each(?))').run(list)
        db.query('DELETE FROM slots WHERE nonce IN (SELECT value FROM json_each(?))').run(list)
        return nonces.length
      })
      for (;;) {
        const pruned = pruneSome(perCommit)
        slots += pruned
        if (pruned < perCommit) break
        await new Promise((resolve) => setImmediate(resolve))
      }
      const reverts = db.query('DELETE FROM reverts WHERE at < ?').run(before).changes
      return { slots, reverts }
    },
    /** Releases the process lock and closes the file. */
    close() {
      try {
        // Best effort: the answer codes are the one thing written behind (see above); the lock is released whatever.
        answers.close()
        unlock()
      } finally {
        if (walFd !== undefined) closeSync(walFd)
        walFd = undefined
        db.close()
      }
    },
  }
}

export type Journal = ReturnType<typeof openJournal>

/** The journal without the writes that move a slot: what the batch sender, the receipt watcher and the nonce keeper hold (a slot moves through the slot life, submitter/slotLife.ts). */
export type JournalReads = Omit<Journal, 'record' | 'replace' | 'reject' | 'resent' | 'resolve' | 'resolveAll' | 'confirm' | 'moveBlock' | 'reopen'>
