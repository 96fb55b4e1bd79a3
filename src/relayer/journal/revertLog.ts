import type { Database } from 'bun:sqlite'
import type { Address, Hex } from 'viem'
import type { RevertRecord } from './types.ts'

/** The orders that passed simulation and reverted on chain, kept for the cool-downs (economics). */
export function createRevertLog(db: Database) {
  /**
   * The newest `at` among the reverts this journal holds: read once here (after the
   * upgrades, which may write some), raised by `addRevert`, the one other writer of the
   * table, and left as it is by a prune (so it is never below the newest one kept). Every
   * order's cool-down asks for the reverts since a time, three reads on SQLite, where
   * almost always none was recorded since: `reverts` then answers none without reading.
   */
  let newestRevertAt = db.query<{ at: number | null }, []>('SELECT MAX(at) AS at FROM reverts').get()?.at ?? Number.NEGATIVE_INFINITY
  return {
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
  }
}
