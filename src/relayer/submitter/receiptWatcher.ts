import {
  type Address,
  BaseError,
  MethodNotFoundRpcError,
  MethodNotSupportedRpcError,
  formatTransactionReceipt,
  type Hex,
  type PublicClient,
  type RpcTransactionReceipt,
  type TransactionReceipt,
  toHex,
} from 'viem'
import type { Logger } from '../../shared/index.ts'
import type { Journal, JournalSlot } from '../journal/index.ts'

/** What a mined tx means for its slot: the outcome JSON to store (see JournalSlot.outcome). */
export type DescribeOutcome = (slot: JournalSlot, receipt: TransactionReceipt) => Promise<string | undefined>

/** The node answered that it has no such method (not a transport failure, which is retried next look). */
function isUnsupported(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false
  return Boolean(error.walk((e) => e instanceof MethodNotFoundRpcError || e instanceof MethodNotSupportedRpcError || (e as { code?: unknown }).code === -32601))
}

/**
 * Blocks behind after which receipts are looked up per pending tx instead of per
 * block. On automine a busy relayer sees a block per tx, so a look often spans
 * dozens of blocks; fetched in parallel they cost about what per-tx lookups would.
 */
const mostBlocksPerLook = 64

/**
 * One watcher for every pending tx of the gas key: each look asks for the block
 * number and, for each new block, its receipts (`eth_getBlockReceipts`; per-tx
 * receipts on a node without it, or after a long gap). A receipt of one of the
 * journal's txs resolves its slot; a receipt from the key that the journal does not
 * know is another process's tx, logged once. Waiters on a nonce are told when its
 * slot is resolved.
 */
export function createReceiptWatcher(options: { client: PublicClient; journal: Journal; address: Address; logger: Logger; describe: DescribeOutcome }) {
  const { client, journal, logger } = options
  const address = options.address.toLowerCase()
  const waiters = new Map<number, Set<() => void>>()
  const foreignSeen = new Set<Hex>()
  let lastSeen: bigint | undefined
  let blockReceipts = true

  function notify(nonce: number) {
    const set = waiters.get(nonce)
    waiters.delete(nonce)
    for (const wake of set ?? []) wake()
  }

  /** Resolves the slot a mined tx of ours belongs to. */
  async function mined(nonce: number, receipt: TransactionReceipt) {
    const slot = journal.slot(nonce)
    if (!slot || slot.status !== 'pending') return
    const filler = journal.tx(receipt.transactionHash)?.kind === 'filler'
    let outcome: string | undefined
    if (!filler) {
      try {
        outcome = await options.describe(slot, receipt)
      } catch (error) {
        logger.warn(`could not describe tx ${receipt.transactionHash}: ${(error as Error).message}`)
      }
    }
    journal.resolve(nonce, {
      status: filler ? 'filled' : receipt.status === 'success' ? 'settled' : 'reverted',
      txHash: receipt.transactionHash,
      blockNumber: receipt.blockNumber,
      ...(outcome === undefined ? {} : { outcome }),
    })
    notify(nonce)
  }

  const receiptsOf = async (block: bigint) =>
    ((await client.request({ method: 'eth_getBlockReceipts', params: [toHex(block)] })) as RpcTransactionReceipt[] | null) ?? []

  /** The receipts of new blocks, fetched together, matched in block order. */
  async function byBlocks(from: bigint, to: bigint): Promise<void> {
    const blocks: bigint[] = []
    for (let block = from; block <= to; block++) blocks.push(block)
    const all = await Promise.all(blocks.map(receiptsOf))
    for (const raw of all.flat()) {
      if (raw.from?.toLowerCase() !== address) continue
      const hash = raw.transactionHash.toLowerCase() as Hex
      const known = journal.tx(hash)
      if (known) await mined(known.nonce, formatTransactionReceipt(raw))
      else if (!foreignSeen.has(hash)) {
        foreignSeen.add(hash)
        if (foreignSeen.size > 10_000) foreignSeen.clear()
        logger.warn(`tx ${hash} from this relayer's key is not in its journal: another process is signing with the same key; run one relayer process per gas key`)
      }
    }
  }

  /** Looks for a receipt of every tx signed at the slot's nonce; true when one was found. */
  async function lookup(slot: JournalSlot): Promise<boolean> {
    for (const tx of journal.txs(slot.nonce).reverse()) {
      const raw = (await client.request({ method: 'eth_getTransactionReceipt', params: [tx.hash] })) as RpcTransactionReceipt | null
      if (raw) {
        await mined(slot.nonce, formatTransactionReceipt(raw))
        return true
      }
    }
    return false
  }

  /** Every pending slot looked up, a few at a time (not one round trip after another). */
  async function lookupAll(): Promise<void> {
    const slots = journal.pending(256)
    for (let i = 0; i < slots.length; i += 16) await Promise.all(slots.slice(i, i + 16).map(lookup))
  }

  return {
    /** Remembers the current block, so the first look after it covers every block mined since (best effort). */
    async prime(): Promise<void> {
      if (lastSeen !== undefined) return
      try {
        lastSeen = await client.getBlockNumber({ cacheTime: 0 })
      } catch {}
    },
    /** One look: new blocks since the last look, their receipts matched to pending slots. */
    async tick(): Promise<void> {
      if (journal.pendingCount() === 0) return
      const head = await client.getBlockNumber({ cacheTime: 0 })
      const from = lastSeen === undefined ? head : lastSeen + 1n
      if (head < from) return
      if (!blockReceipts || head - from >= BigInt(mostBlocksPerLook)) {
        await lookupAll()
      } else {
        try {
          await byBlocks(from, head)
        } catch (error) {
          if (!isUnsupported(error)) throw error
          blockReceipts = false
          logger.info('the RPC has no eth_getBlockReceipts; looking receipts up per pending tx')
          await lookupAll()
        }
      }
      lastSeen = head
    },
    lookup,
    notify,
    /** The slot once it is resolved, or as it stands after `timeoutMs`. */
    async outcome(nonce: number, timeoutMs: number): Promise<JournalSlot | undefined> {
      const now = journal.slot(nonce)
      if (!now || now.status !== 'pending') return now
      let timer: ReturnType<typeof setTimeout> | undefined
      let wake!: () => void
      const woken = new Promise<void>((resolve) => (wake = resolve))
      let set = waiters.get(nonce)
      if (!set) waiters.set(nonce, (set = new Set()))
      set.add(wake)
      await Promise.race([woken, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))])
      clearTimeout(timer)
      set.delete(wake)
      return journal.slot(nonce)
    },
  }
}

export type ReceiptWatcher = ReturnType<typeof createReceiptWatcher>
