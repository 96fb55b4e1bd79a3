import type { Database } from 'bun:sqlite'
import type { Hex } from 'viem'
import type { AnswerCodes } from './answerCodes.ts'
import { parseEip1559 } from './parseEip1559.ts'
import type { PendingCallees } from './pendingCallees.ts'
import type { JournalObserver, NewSlot, SignedTx } from './types.ts'

/**
 * The journal's writes of what the key signs: new slots with their first txs, a
 * replacement or filler at a slot's nonce, slots the node refused outright, a tx sent
 * again, the code a client was answered. A signed tx is on disk (`durable`) before the
 * write resolves, so before it is broadcast; the observers hear of each reservation.
 */
export function createSignedWrites(db: Database, answers: AnswerCodes, observers: readonly JournalObserver[], durable: () => Promise<void>, callees: PendingCallees) {
  const insertSlot = db.query(
    `INSERT INTO slots (nonce, order_hash, consumer, adapter, pay_token, status, tx_hash, sent_at, fee_amount, fee_value_wei)
     VALUES ($nonce, $orderHash, $consumer, $adapter, $payToken, 'pending', $txHash, $sentAt, $feeAmount, $feeValueWei)`,
  )
  /** Whether the slot's order was paid in a token the relayer could not value (relayed within the unpriced budget). */
  const unpricedAt = (nonce: number): boolean =>
    (db.query<{ unpriced: number }, [number]>('SELECT (fee_amount IS NOT NULL AND fee_value_wei IS NULL) AS unpriced FROM slots WHERE nonce = ?').get(nonce)?.unpriced ?? 0) === 1
  const insertTx = db.query(
    `INSERT OR IGNORE INTO txs (hash, nonce, raw, kind, signed_at)
     VALUES ($hash, $nonce, $raw, $kind, $signedAt)`,
  )
  /**
   * Writes a signed tx; its fees and call are read back from `raw` (refused when they cannot
   * be, or it is for another nonce). Returns the most it can cost the key: gas limit × fee cap.
   */
  const addTx = (tx: SignedTx): bigint => {
    const signed = parseEip1559(tx.raw)
    if (signed.nonce !== tx.nonce) throw new Error(`journal: tx ${tx.hash} is signed at nonce ${signed.nonce}, not ${tx.nonce}`)
    const hash = tx.hash.toLowerCase()
    insertTx.run({ hash, nonce: tx.nonce, raw: tx.raw, kind: tx.kind, signedAt: tx.signedAt })
    callees.remember(hash, signed.to.toLowerCase() as Hex)
    return signed.gas * signed.maxFeePerGas
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
    /** The code a client was answered for this slot. */
    answered(nonce: number, code: string) {
      answers.set(nonce, code)
    },
  }
}
