import type { Database } from 'bun:sqlite'
import type { Hex } from 'viem'
import type { AnswerCodes } from './answerCodes.ts'
import { selectSlots, type SlotRow, slotOf, type TxRow, txOf } from './tables.ts'
import type { JournalSlot, JournalTx } from './types.ts'

/** The journal's reads of slots and their signed txs; a slot read carries the answer code this process gave it, written or not. */
export function createSlotReads(db: Database, answers: AnswerCodes) {
  return {
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
    /** The mined slots whose cost is not known yet (their receipts not read), lowest nonce first. */
    uncosted(limit = 256): Array<{ nonce: number; txHash: Hex }> {
      return db
        .query<{ nonce: number; tx_hash: string }, [number]>("SELECT nonce, tx_hash FROM slots WHERE spent_wei IS NULL AND mined_at IS NOT NULL AND status != 'foreign' ORDER BY nonce LIMIT ?")
        .all(limit)
        .map((row) => ({ nonce: row.nonce, txHash: row.tx_hash as Hex }))
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
    /** Every slot still pending, lowest nonce first. */
    pending(limit = 1_000_000): JournalSlot[] {
      return db.query<SlotRow, [number]>(`${selectSlots} WHERE slots.status = 'pending' ORDER BY slots.nonce LIMIT ?`).all(limit).map((row) => answers.overlay(slotOf(row)))
    },
    /** The slots still pending from `nonce` on, lowest nonce first. */
    pendingFrom(nonce: number, limit: number): JournalSlot[] {
      return db
        .query<SlotRow, [number, number]>(`${selectSlots} WHERE slots.status = 'pending' AND slots.nonce >= ? ORDER BY slots.nonce LIMIT ?`)
        .all(nonce, limit)
        .map((row) => answers.overlay(slotOf(row)))
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
  }
}
