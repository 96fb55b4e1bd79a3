import type { Address, Hex } from 'viem'

/**
 * What became of one nonce of the gas key:
 * - `pending`: signed and written; broadcast (or about to be); no receipt seen yet.
 * - `settled` / `reverted`: one of its txs was mined with that status.
 * - `filled`: its order could no longer settle; a 0-value self-transfer took the nonce.
 * - `foreign`: the nonce was taken by a transaction this journal does not know
 *   (another process signing with the same key).
 *
 * A slot the node refused outright (never in any pool) is deleted: its nonce is free again.
 */
export type SlotStatus = 'pending' | 'settled' | 'reverted' | 'filled' | 'foreign'

/** One nonce of the gas key and the call it carries. */
export type JournalSlot = {
  nonce: number
  /** The order the call settles; null for a filler. */
  orderHash: Hex | null
  consumer: Address | null
  adapter: Address | null
  /** The order's pay token (the gas-limit cache is keyed by adapter and pay token). */
  payToken: Address | null
  /** The call of the slot's tx (`txHash`), read from its signed bytes: the journal keeps it nowhere else. */
  to: Address
  data: Hex
  gas: bigint
  status: SlotStatus
  /** The latest tx signed at this nonce, or the one that was mined. */
  txHash: Hex
  blockNumber: bigint | null
  /** JSON: the RelaySuccess once settled; `{ message }` for any other outcome. */
  outcome: string | null
  /** The last code a client was answered for this slot ('OK' for a 200). */
  answer: string | null
  /** When a tx was last sent for this nonce (ms since epoch). */
  sentAt: number
  /** The order's fee in base units of its pay token (null for a filler, or a slot journaled before fees were kept). */
  feeAmount: bigint | null
  /** What the fee was worth in wei when the tx was signed; null when the token could not be valued (or for a filler). */
  feeValueWei: bigint | null
  /** Wei the mined tx cost the key (gas used × effective gas price, the L1 component included on Arbitrum); null until known. */
  spentWei: bigint | null
  /** When the relayer saw the nonce's tx mined (ms since epoch); null until then. */
  minedAt: number | null
  /** The hash of the block the tx was mined in (null while pending, or when the node did not say). */
  blockHash: Hex | null
  /** Whether that block is RELAYER_CONFIRMATIONS deep in the chain the relayer follows: final, not watched for reorgs any more. */
  confirmed: boolean
}

/** One signed transaction: the first at a nonce, a replacement, or a filler. */
export type JournalTx = {
  hash: Hex
  nonce: number
  raw: Hex
  /** Read from `raw` (written nowhere else). */
  maxFeePerGas: bigint
  maxPriorityFeePerGas: bigint
  kind: 'order' | 'replacement' | 'filler'
  signedAt: number
}

/** A signed transaction as written: its fees and call are in `raw`. */
export type SignedTx = Omit<JournalTx, 'maxFeePerGas' | 'maxPriorityFeePerGas'>

/** What became of a pending slot: its final status, the tx, block and outcome that say so, and what the tx cost when known. */
export type SlotResolution = { nonce: number; status: Exclude<SlotStatus, 'pending'>; txHash?: Hex; blockNumber?: bigint; blockHash?: Hex; outcome?: string; spentWei?: bigint }

/** A slot about to be broadcast, with its first signed tx (which holds its call). */
export type NewSlot = Omit<JournalSlot, 'to' | 'data' | 'gas' | 'status' | 'blockNumber' | 'outcome' | 'answer' | 'txHash' | 'sentAt' | 'spentWei' | 'minedAt' | 'feeAmount' | 'feeValueWei' | 'blockHash' | 'confirmed'> &
  Partial<Pick<JournalSlot, 'feeAmount' | 'feeValueWei'>> & { tx: SignedTx }

/** An order that passed simulation and reverted on chain, no other tx's settlement explaining it. */
export type RevertRecord = { at: number; consumer: Address; adapter: Address | null; payToken: Address | null; txHash: Hex }

/**
 * What the journal tells those who follow it (see Journal.observe): what the gas key's
 * nonces hold, cost and earn (the spend ledger and the books), and which slots a reorg
 * made pending again and which pending slots were resolved (the replicas' outcomes).
 */
export type JournalObserver = {
  /** A tx was signed at `nonce`; it may cost up to `worstWei`. */
  reserved?(nonce: number, worstWei: bigint, unpriced: boolean): void
  /** The nonce's mined tx cost `wei`, seen mined at `at`. */
  spent?(nonce: number, wei: bigint, at: number, unpriced: boolean): void
  /** The nonce's slot was dropped (never pooled) or taken by a tx this journal did not sign. */
  released?(nonce: number): void
  /** An order settled, earning `feeAmount` of `payToken`, worth `feeValueWei` when it was signed (null: no value). */
  earned?(payToken: Address, feeAmount: bigint, feeValueWei: bigint | null): void
  /**
   * A reorg took the nonce's mined tx out of the chain: what it was counted as spending
   * (`spentWei`, seen at `minedAt`) and earning no longer holds; its slot is pending again.
   */
  reopened?(slot: ReopenedSlot): void
  /** The nonce's pending slot was resolved: mined (settled, reverted, filled) or taken by another tx. */
  resolved?(nonce: number): void
  /** A reorg kept the nonce's mined tx, in another block. */
  moved?(nonce: number): void
}

/** A slot a reorg made pending again, with what it had been counted as costing and earning, and what it may cost now. */
export type ReopenedSlot = {
  nonce: number
  spentWei: bigint | null
  minedAt: number | null
  payToken: Address | null
  feeAmount: bigint | null
  feeValueWei: bigint | null
  settled: boolean
  /** Its current tx's gas limit × fee cap. */
  worstWei: bigint
  unpriced: boolean
}
