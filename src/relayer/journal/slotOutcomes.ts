import type { Database } from 'bun:sqlite'
import type { Address, Hex } from 'viem'
import type { AnswerCodes } from './answerCodes.ts'
import { parseEip1559 } from './parseEip1559.ts'
import { selectSlots, type SlotRow } from './tables.ts'
import type { JournalObserver, SlotResolution } from './types.ts'

/**
 * The journal's writes of what became of the slots: resolved (mined, or taken by another
 * tx), what each mined tx cost, confirmed deep enough, moved or reopened by a reorg. The
 * outcomes of one look at the chain go in one commit; the observers hear what each means
 * for spending and earning.
 */
export function createSlotOutcomes(db: Database, answers: AnswerCodes, observers: readonly JournalObserver[]) {
  /** A slot's fee as a resolution returns it. */
  type SlotFee = { pay_token: string | null; fee_amount: string | null; fee_value_wei: string | null }
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

  return {
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
    /** What mined txs cost the key (from their receipts), in one commit. */
    setCosts(costs: ReadonlyArray<{ nonce: number; wei: bigint }>) {
      if (costs.length === 0) return
      const rows = setCosts(costs)
      for (const [i, { nonce, wei }] of costs.entries()) {
        const row = rows[i]
        for (const observer of observers) observer.spent?.(nonce, wei, row?.mined_at ?? Date.now(), row?.unpriced === 1)
      }
    },
    /** Replaces the stored outcome (a revert reason found later). */
    setOutcome(nonce: number, outcome: string) {
      db.query('UPDATE slots SET outcome = ? WHERE nonce = ?').run(outcome, nonce)
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
  }
}
