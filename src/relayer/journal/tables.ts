import type { Address, Hex } from 'viem'
import { parseEip1559 } from './parseEip1559.ts'
import type { JournalSlot, JournalTx, SlotStatus } from './types.ts'

// The journal's tables, and how their rows become slots and txs. A tx's fees and call are
// read from its signed bytes, and a slot's call from its current tx's: the journal keeps
// them nowhere else (docs/relayer-safety.md).

export const schema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS slots (
  nonce INTEGER PRIMARY KEY,
  order_hash TEXT,
  consumer TEXT,
  adapter TEXT,
  pay_token TEXT,
  status TEXT NOT NULL,
  tx_hash TEXT NOT NULL,
  block_number INTEGER,
  outcome TEXT,
  answer TEXT,
  sent_at INTEGER NOT NULL,
  fee_amount TEXT,
  fee_value_wei TEXT,
  spent_wei TEXT,
  mined_at INTEGER,
  block_hash TEXT,
  confirmed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS slots_by_order ON slots (order_hash);
CREATE INDEX IF NOT EXISTS slots_by_status ON slots (status);
CREATE TABLE IF NOT EXISTS txs (
  hash TEXT PRIMARY KEY,
  nonce INTEGER NOT NULL,
  raw TEXT NOT NULL,
  kind TEXT NOT NULL,
  signed_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS txs_by_nonce ON txs (nonce);
CREATE TABLE IF NOT EXISTS reverts (at INTEGER NOT NULL, consumer TEXT NOT NULL, adapter TEXT, pay_token TEXT, tx_hash TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS reverts_by_consumer ON reverts (consumer, at);
CREATE INDEX IF NOT EXISTS reverts_by_adapter ON reverts (adapter, at);
CREATE INDEX IF NOT EXISTS reverts_by_pay_token ON reverts (pay_token, at);
`

/** Indexes on columns an upgrade may have to add first (created after the upgrades run). */
export const laterIndexes = `
CREATE INDEX IF NOT EXISTS slots_by_mined_at ON slots (mined_at);
CREATE INDEX IF NOT EXISTS slots_unconfirmed ON slots (block_number) WHERE confirmed = 0 AND status != 'pending';
CREATE INDEX IF NOT EXISTS slots_uncosted ON slots (nonce) WHERE spent_wei IS NULL AND mined_at IS NOT NULL AND status != 'foreign';
`

// A slot with its current tx's raw, from which its call (to, data, gas) is read. A
// subquery: the same read as a LEFT JOIN took SQLite 2-4× as long, found or not.
export const selectSlots = 'SELECT slots.*, (SELECT raw FROM txs WHERE txs.hash = slots.tx_hash) AS raw FROM slots'

export type SlotRow = {
  nonce: number
  order_hash: string | null
  consumer: string | null
  adapter: string | null
  pay_token: string | null
  status: string
  tx_hash: string
  block_number: number | null
  outcome: string | null
  answer: string | null
  sent_at: number
  fee_amount: string | null
  fee_value_wei: string | null
  spent_wei: string | null
  mined_at: number | null
  block_hash: string | null
  confirmed: number
  /** The raw of the slot's tx (`tx_hash`): the slot's call is the one it signs. */
  raw: string | null
}
export type TxRow = { hash: string; nonce: number; raw: string; kind: string; signed_at: number }

export const slotOf = (row: SlotRow): JournalSlot => {
  if (row.raw === null) {
    throw new Error(
      `the journal is damaged: slot ${row.nonce}'s tx ${row.tx_hash} is not in it; restore RELAYER_DB from a backup, or move it away after checking the gas key's pending txs on chain`,
    )
  }
  const { to, data, gas } = parseEip1559(row.raw as Hex)
  return {
    nonce: row.nonce,
    orderHash: row.order_hash as Hex | null,
    consumer: row.consumer as Address | null,
    adapter: row.adapter as Address | null,
    payToken: row.pay_token as Address | null,
    to,
    data,
    gas,
    status: row.status as SlotStatus,
    txHash: row.tx_hash as Hex,
    blockNumber: row.block_number === null ? null : BigInt(row.block_number),
    outcome: row.outcome,
    answer: row.answer,
    sentAt: row.sent_at,
    feeAmount: row.fee_amount === null ? null : BigInt(row.fee_amount),
    feeValueWei: row.fee_value_wei === null ? null : BigInt(row.fee_value_wei),
    spentWei: row.spent_wei === null ? null : BigInt(row.spent_wei),
    minedAt: row.mined_at,
    blockHash: row.block_hash as Hex | null,
    confirmed: row.confirmed === 1,
  }
}
export const txOf = (row: TxRow): JournalTx => {
  const { maxFeePerGas, maxPriorityFeePerGas } = parseEip1559(row.raw as Hex)
  return {
    hash: row.hash as Hex,
    nonce: row.nonce,
    raw: row.raw as Hex,
    maxFeePerGas,
    maxPriorityFeePerGas,
    kind: row.kind as JournalTx['kind'],
    signedAt: row.signed_at,
  }
}
