import type { Database } from 'bun:sqlite'
import type { Address, Hex } from 'viem'
import { parseEip1559 } from './parseEip1559.ts'
import type { JournalObserver } from './types.ts'

/** Who follows the journal's slots (the spending caps, the economics, the metrics): each is first handed what the journal holds. */
export function createJournalObservers(db: Database) {
  const observers: JournalObserver[] = []
  return {
    /** The observers so far, told of every write from now on. */
    observers: observers as readonly JournalObserver[],
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
  }
}
