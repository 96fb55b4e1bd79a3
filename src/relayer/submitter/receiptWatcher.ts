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
import type { Journal, JournalSlot, JournalTx, SlotResolution } from '../journal/index.ts'
import { type BlockPace, createBlockPace } from './blockPace.ts'

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
 * receipts on a node without it, or after a long gap). With a batching client the
 * look asks for the head and the next block's receipts in one JSON-RPC batch, so a
 * look that finds one new block is one round trip. A receipt of one of the journal's
 * txs resolves its slot (all the slots a look resolves in one journal commit); a
 * receipt from the key that the journal does not know is another process's tx,
 * logged once. Waiters on a nonce are told when its slot is resolved.
 */
export function createReceiptWatcher(options: {
  client: PublicClient
  /** A client over the same RPC that puts the requests made together in one JSON-RPC batch. */
  batchClient?: PublicClient
  journal: Journal
  address: Address
  logger: Logger
  describe: DescribeOutcome
  /** Where the pace of blocks is kept (default: a new one). */
  pace?: BlockPace
}) {
  const { client, journal, logger } = options
  const batchClient = options.batchClient ?? client
  const address = options.address.toLowerCase()
  const waiters = new Map<number, Set<() => void>>()
  const pace = options.pace ?? createBlockPace()
  const foreignSeen = new Set<Hex>()
  let lastSeen: bigint | undefined
  let blockReceipts = true
  // Batched looks that failed in a row while a single call worked; NaN once batching is off.
  let batchFailures = options.batchClient ? 0 : Number.NaN
  const batching = () => !Number.isNaN(batchFailures)

  function withoutBlockReceipts() {
    if (!blockReceipts) return
    blockReceipts = false
    logger.info('the RPC has no eth_getBlockReceipts; looking receipts up per pending tx')
  }

  function notify(nonce: number) {
    const set = waiters.get(nonce)
    waiters.delete(nonce)
    for (const wake of set ?? []) wake()
  }

  /** What a mined tx of ours means for its pending slot (undefined when the slot is not pending). */
  async function resolution(tx: JournalTx, receipt: TransactionReceipt, slot: JournalSlot | undefined): Promise<SlotResolution | undefined> {
    if (!slot || slot.status !== 'pending') return undefined
    pace.mined(tx.signedAt)
    const filler = tx.kind === 'filler'
    let outcome: string | undefined
    if (!filler) {
      try {
        outcome = await options.describe(slot, receipt)
      } catch (error) {
        logger.warn(`could not describe tx ${receipt.transactionHash}: ${(error as Error).message}`)
      }
    }
    return {
      nonce: tx.nonce,
      status: filler ? 'filled' : receipt.status === 'success' ? 'settled' : 'reverted',
      txHash: receipt.transactionHash,
      blockNumber: receipt.blockNumber,
      ...(outcome === undefined ? {} : { outcome }),
    }
  }

  /** Writes what the mined txs mean, in one commit, then wakes their waiters. */
  async function resolveMined(mined: Array<{ tx: JournalTx; receipt: TransactionReceipt }>): Promise<void> {
    const results: SlotResolution[] = []
    const slots = journal.slots(mined.map(({ tx }) => tx.nonce))
    for (const { tx, receipt } of mined) {
      const result = await resolution(tx, receipt, slots.get(tx.nonce))
      if (result) results.push(result)
    }
    journal.resolveAll(results)
    for (const result of results) notify(result.nonce)
  }

  const receiptsOf = (block: bigint, via: PublicClient = client) =>
    via.request({ method: 'eth_getBlockReceipts', params: [toHex(block)] }) as Promise<RpcTransactionReceipt[] | null>

  /** The receipts of blocks `from`…`to` (those not given in `known`), fetched together in one batch, matched in block order. */
  async function byBlocks(from: bigint, to: bigint, known: Map<bigint, RpcTransactionReceipt[]> = new Map()): Promise<void> {
    const blocks: bigint[] = []
    for (let block = from; block <= to; block++) if (!known.has(block)) blocks.push(block)
    const each = (via: PublicClient) => Promise.all(blocks.map((block) => receiptsOf(block, via)))
    const fetched = blocks.length > 1 ? await inBatch(each, () => each(client)) : await each(client)
    for (const [i, block] of blocks.entries()) known.set(block, fetched[i] ?? [])
    const ours: RpcTransactionReceipt[] = []
    for (let block = from; block <= to; block++) {
      for (const raw of known.get(block) ?? []) if (raw.from?.toLowerCase() === address) ours.push(raw)
    }
    const txs = journal.txsByHash(ours.map((raw) => raw.transactionHash))
    const mined: Array<{ tx: JournalTx; receipt: TransactionReceipt }> = []
    for (const raw of ours) {
      const hash = raw.transactionHash.toLowerCase() as Hex
      const tx = txs.get(hash)
      if (tx) mined.push({ tx, receipt: formatTransactionReceipt(raw) })
      else if (!foreignSeen.has(hash)) {
        foreignSeen.add(hash)
        if (foreignSeen.size > 10_000) foreignSeen.clear()
        logger.warn(`tx ${hash} from this relayer's key is not in its journal: another process is signing with the same key; run one relayer process per gas key`)
      }
    }
    await resolveMined(mined)
  }

  /** Looks for a receipt of every tx signed at the slot's nonce; true when one was found. */
  async function lookup(slot: JournalSlot): Promise<boolean> {
    for (const tx of journal.txs(slot.nonce).reverse()) {
      const raw = (await client.request({ method: 'eth_getTransactionReceipt', params: [tx.hash] })) as RpcTransactionReceipt | null
      if (raw) {
        await resolveMined([{ tx, receipt: formatTransactionReceipt(raw) }])
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

  /**
   * The head, and with it (one batch) the receipts of the block after the last one seen,
   * which is most often the only new one. Null receipts: that block did not exist when
   * the node read it (it may have been mined since: fetched again with the rest).
   */
  async function headAndNext(): Promise<{ head: bigint; next?: RpcTransactionReceipt[] }> {
    const after = lastSeen
    if (after === undefined || !blockReceipts || !batching()) return { head: await client.getBlockNumber({ cacheTime: 0 }) }
    return inBatch(
      async (via) => {
        const [head, next] = await Promise.all([
          via.request({ method: 'eth_blockNumber' }).then((hex) => BigInt(hex as string)),
          receiptsOf(after + 1n, via).catch((error: unknown) => {
            if (!isUnsupported(error)) throw error
            withoutBlockReceipts()
            return null
          }),
        ])
        return next ? { head, next } : { head }
      },
      async () => ({ head: await client.getBlockNumber({ cacheTime: 0 }) }),
    )
  }

  /**
   * `batched` through the batching client; should it fail, `single` through the plain one.
   * A node that takes no batches fails every batched request while single calls work:
   * after three such failures in a row the watcher stops batching (an outage fails both).
   */
  async function inBatch<T>(batched: (via: PublicClient) => Promise<T>, single: () => Promise<T>): Promise<T> {
    if (!batching()) return single()
    let failure: unknown
    try {
      const result = await batched(batchClient)
      batchFailures = 0
      return result
    } catch (error) {
      failure = error
    }
    const result = await single()
    if (++batchFailures >= 3) {
      batchFailures = Number.NaN
      logger.info(`receipt watcher: the RPC failed a JSON-RPC batch three times while single calls worked (${(failure as Error).message?.split('\n')[0]}); looking without batches from now on`)
    }
    return result
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
      const { head, next } = await headAndNext()
      const from = lastSeen === undefined ? head : lastSeen + 1n
      if (head < from) return
      if (lastSeen !== undefined) pace.headMoved()
      if (!blockReceipts || head - from >= BigInt(mostBlocksPerLook)) {
        await lookupAll()
      } else {
        try {
          await byBlocks(from, head, next ? new Map([[from, next]]) : undefined)
        } catch (error) {
          if (!isUnsupported(error)) throw error
          withoutBlockReceipts()
          await lookupAll()
        }
      }
      lastSeen = head
    },
    lookup,
    notify,
    /** The newest block a look has read (undefined before the first). */
    get head(): bigint | undefined {
      return lastSeen
    },
    /** When the head last moved and how soon the key's txs are usually mined (read by the nonce keeper). */
    pace,
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
