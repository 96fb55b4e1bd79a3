import { BaseError, type Hex, MethodNotFoundRpcError, MethodNotSupportedRpcError, type PublicClient, type RpcTransactionReceipt } from 'viem'
import { errorLine, type Logger } from '../../shared/index.ts'
import type { Journal, JournalSlot, JournalTx, SlotResolution } from '../journal/index.ts'
import { type BlockPace, createBlockPace } from './blockPace.ts'
import { createCanonicalBlocks } from './canonicalBlocks.ts'
import { parseEip1559 } from './parseEip1559.ts'
import { type BlockTxs, blockLogs, blockTxs, type Mined, type MinedReceipt, minedReceipt, minedTxs, withLogs } from './minedTxs.ts'

/** What a mined tx means for its slot: the outcome JSON to store (see JournalSlot.outcome). */
export type DescribeOutcome = (slot: JournalSlot, receipt: MinedReceipt) => Promise<string | undefined>

/** The call a signed tx of the journal makes. */
function callOf(raw: Hex): Pick<JournalSlot, 'to' | 'data' | 'gas'> {
  const { to, data, gas } = parseEip1559(raw)
  return { to, data, gas }
}

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

/** Receipts read per look for the costs of mined txs not costed yet. */
const costsPerLook = 256

/**
 * One watcher for every pending tx of the gas key: each look asks for the block
 * number and, for each new block, its tx hashes (`eth_getBlockByNumber` without
 * bodies); a block holding txs of the journal is then asked for their logs
 * (`eth_getLogs` by block hash), and only a tx that logged nothing there for its
 * receipt (minedTxs.ts). On a node without those, or after a long gap, receipts are
 * looked up per pending tx. With a batching client the look asks for the head and the
 * next block in one JSON-RPC batch, so a look that finds a block with none of the
 * key's txs is one round trip. A mined tx of the journal resolves its slot (all the
 * slots a look resolves in one journal commit), and waiters on a nonce are told when
 * its slot is resolved. A tx from the key that the journal does not know takes a
 * nonce the journal holds: the nonce keeper finds it (nonceKeeper.ts).
 *
 * What each mined tx cost the key (gas used × effective gas price: on Arbitrum-family chains
 * the receipt's gas includes the L1 component) goes into the journal: a revert's or a
 * filler's at once (its receipt is read anyway), a success's from its receipt, read after
 * its waiters are woken (the metrics' RPC observer counts its gas too).
 */
export function createReceiptWatcher(options: {
  client: PublicClient
  /** A client over the same RPC that puts the requests made together in one JSON-RPC batch. */
  batchClient?: PublicClient
  journal: Journal
  logger: Logger
  describe: DescribeOutcome
  /** Where the pace of blocks is kept (default: a new one). */
  pace?: BlockPace
  /** Blocks deep a mined tx's block must be before its slot is final; until then it is watched for reorgs (default 1). */
  confirmations?: number
}) {
  const { client, journal, logger } = options
  const confirmations = BigInt(Math.max(1, options.confirmations ?? 1))
  // The blocks read, to tell a reorg: a block whose parent is not the one kept below it.
  const canonical = createCanonicalBlocks(Number(confirmations) + 128)
  const batchClient = options.batchClient ?? client
  // Each waiter is handed its slot as the journal holds it once resolved (undefined: it reads it itself).
  const waiters = new Map<number, Set<(slot?: JournalSlot) => void>>()
  const pace = options.pace ?? createBlockPace()
  let lastSeen: bigint | undefined
  let blockLooks = true
  // Batched looks that failed in a row while a single call worked; NaN once batching is off.
  let batchFailures = options.batchClient ? 0 : Number.NaN
  const batching = () => !Number.isNaN(batchFailures)

  function withoutBlockLooks() {
    if (!blockLooks) return
    blockLooks = false
    logger.info("the RPC has no eth_getLogs by block hash (or no eth_getBlockByNumber); looking receipts up per pending tx")
  }

  function notify(nonce: number, slot?: JournalSlot) {
    const set = waiters.get(nonce)
    waiters.delete(nonce)
    for (const wake of set ?? []) wake(slot)
  }

  /** What a mined tx of ours means for its pending slot (undefined when the slot is not pending). */
  async function resolution(tx: JournalTx, receipt: MinedReceipt, slot: JournalSlot | undefined): Promise<SlotResolution | undefined> {
    if (!slot || slot.status !== 'pending') return undefined
    pace.mined(tx.signedAt)
    const filler = tx.kind === 'filler'
    let outcome: string | undefined
    if (!filler) {
      try {
        // Described by the mined tx's call: a replacement or a filler may have given the
        // slot another since (its current tx is not always the one mined). The slot read
        // already holds the current tx's call, so only another tx's bytes are read again.
        outcome = await options.describe(tx.hash === slot.txHash ? slot : { ...slot, ...callOf(tx.raw), txHash: tx.hash }, receipt)
      } catch (error) {
        logger.warn(`could not describe tx ${receipt.transactionHash}: ${(error as Error).message}`)
      }
    }
    const spent = receipt.gasUsed !== undefined && receipt.effectiveGasPrice !== undefined ? receipt.gasUsed * receipt.effectiveGasPrice : undefined
    return {
      nonce: tx.nonce,
      status: filler ? 'filled' : receipt.status === 'success' ? 'settled' : 'reverted',
      txHash: receipt.transactionHash,
      blockNumber: receipt.blockNumber,
      ...(receipt.blockHash ? { blockHash: receipt.blockHash } : {}),
      ...(outcome === undefined ? {} : { outcome }),
      ...(spent === undefined ? {} : { spentWei: spent }),
    }
  }

  /** Writes what the mined txs mean, in one commit, then wakes their waiters. */
  async function resolveMined(mined: readonly Mined[], read?: Map<number, JournalSlot>): Promise<void> {
    const results: SlotResolution[] = []
    const slots = read ?? journal.slots(mined.map(({ tx }) => tx.nonce))
    for (const { tx, receipt } of mined) {
      const result = await resolution(tx, receipt, slots.get(tx.nonce))
      if (result) results.push(result)
    }
    journal.resolveAll(results)
    // The waiters' slots, read back after the commit in one query rather than one read each.
    const waited = results.filter(({ nonce }) => waiters.has(nonce)).map(({ nonce }) => nonce)
    const resolved = waited.length > 0 ? journal.slots(waited) : new Map<number, JournalSlot>()
    for (const result of results) notify(result.nonce, resolved.get(result.nonce))
  }

  /**
   * The costs of mined txs the journal does not have yet (successes proven by their logs):
   * their receipts read once the waiters are woken, a batch at a time, and their gas used ×
   * effective gas price written in one commit. A failed read, or a receipt the node does not
   * have yet, is tried again at the next look.
   */
  async function readCosts(): Promise<void> {
    const uncosted = journal.uncosted(costsPerLook)
    if (uncosted.length === 0) return
    const read = (via: PublicClient) => Promise.all(uncosted.map(({ txHash }) => via.request({ method: 'eth_getTransactionReceipt', params: [txHash] }) as Promise<RpcTransactionReceipt | null>))
    let receipts: Array<RpcTransactionReceipt | null>
    try {
      receipts = await inBatch(read, () => read(client))
    } catch {
      return
    }
    const costs: Array<{ nonce: number; wei: bigint }> = []
    for (const [i, { nonce }] of uncosted.entries()) {
      const raw = receipts[i]
      if (raw?.gasUsed && raw.effectiveGasPrice) costs.push({ nonce, wei: BigInt(raw.gasUsed) * BigInt(raw.effectiveGasPrice) })
    }
    journal.setCosts(costs)
  }

  /**
   * Blocks `from`…`to` (those not given in `known`) read together in one batch, their txs
   * of the journal resolved in block order; `reorgBelow` when a block does not follow the
   * chain read so far (nothing is resolved then: the reorg is dealt with first).
   */
  async function byBlocks(from: bigint, to: bigint, known: Map<bigint, BlockTxs> = new Map()): Promise<{ reorgBelow?: bigint }> {
    const numbers: bigint[] = []
    for (let block = from; block <= to; block++) if (!known.has(block)) numbers.push(block)
    const each = (via: PublicClient) => Promise.all(numbers.map((block) => blockTxs(via, block)))
    const fetched = numbers.length > 1 ? await inBatch(each, () => each(client)) : numbers.length === 1 ? await each(client) : []
    for (const [i, block] of numbers.entries()) {
      const read = fetched[i]
      if (read) known.set(block, read)
    }
    const blocks: BlockTxs[] = []
    for (let block = from; block <= to; block++) {
      const read = known.get(block)
      if (!read) continue
      // A block that does not follow the one kept below it: the chain was reorganised under us.
      if (canonical.breaks(read)) return { reorgBelow: read.number - 1n }
      canonical.add(read)
      blocks.push(read)
    }
    const looked = (via: PublicClient) => minedTxs(blocks, { journal, via })
    const { mined, slots } = await inBatch(looked, () => looked(client))
    await resolveMined(mined, slots)
    return {}
  }

  /**
   * The chain was reorganised at or below `below`: the fork point is the highest block kept
   * whose hash the chain still has (read in batches, highest first). Every mined tx of the
   * key above it is looked up again: one the chain holds elsewhere keeps its slot, in its
   * new block; one the chain no longer holds makes its slot pending again (journal.reopen),
   * for the nonce keeper to send again as signed or fill. Looks go on from the fork point.
   */
  async function reorged(below: bigint): Promise<void> {
    const numbers = canonical.numbersDescending().filter((number) => number <= below)
    let fork: bigint | undefined
    for (let i = 0; i < numbers.length && fork === undefined; i += 16) {
      const chunk = numbers.slice(i, i + 16)
      const read = (via: PublicClient) => Promise.all(chunk.map((number) => blockTxs(via, number)))
      const blocks = await inBatch(read, () => read(client))
      for (const [j, number] of chunk.entries()) {
        if (blocks[j]?.hash.toLowerCase() === canonical.hash(number)) {
          fork = number
          break
        }
      }
    }
    // Deeper than the blocks kept: every one of them is in doubt.
    fork ??= (numbers.at(-1) ?? below + 1n) - 1n
    canonical.forgetAbove(fork)
    lastSeen = fork
    const mined = journal.minedAbove(fork)
    if (mined.length === 0) return
    const read = (via: PublicClient) => Promise.all(mined.map(({ txHash }) => via.request({ method: 'eth_getTransactionReceipt', params: [txHash] }) as Promise<RpcTransactionReceipt | null>))
    const receipts = await inBatch(read, () => read(client))
    const gone: number[] = []
    for (const [i, { nonce }] of mined.entries()) {
      const receipt = receipts[i]
      if (receipt?.blockHash && receipt.blockNumber) journal.moveBlock(nonce, BigInt(receipt.blockNumber), receipt.blockHash)
      else gone.push(nonce)
    }
    if (gone.length === 0) return
    journal.reopen(gone)
    logger.warn(
      `a reorg replaced the chain above block ${fork}: ${gone.length} tx${gone.length === 1 ? '' : 's'} of the key left it (nonce${gone.length === 1 ? '' : 's'} ${gone.join(', ')}); their orders are pending again, to be sent again as signed or their nonces filled`,
    )
  }

  /**
   * Mined slots whose block is now `confirmations` deep are final when that block is still
   * the chain's (its hash as kept, or read now for a block not kept); one whose block the
   * chain replaced means a reorg went unseen: it is dealt with as one.
   */
  async function confirmDeep(head: bigint): Promise<void> {
    const deep = head - confirmations + 1n
    if (deep < 0n) return
    const rows = journal.unconfirmed(deep)
    if (rows.length === 0) return
    const unknown = [...new Set(rows.map((row) => row.blockNumber).filter((number) => canonical.hash(number) === undefined))]
    const read = (via: PublicClient) => Promise.all(unknown.map((number) => blockTxs(via, number)))
    const fetched = unknown.length === 0 ? [] : await inBatch(read, () => read(client))
    const hashes = new Map(unknown.map((number, i) => [number, fetched[i]?.hash.toLowerCase()]))
    const final: number[] = []
    let replacedFrom: bigint | undefined
    for (const row of rows) {
      const hash = canonical.hash(row.blockNumber) ?? hashes.get(row.blockNumber)
      if (hash === undefined) continue
      if (row.blockHash === null || row.blockHash.toLowerCase() === hash) final.push(row.nonce)
      else if (replacedFrom === undefined || row.blockNumber < replacedFrom) replacedFrom = row.blockNumber
    }
    journal.confirm(final)
    if (replacedFrom !== undefined) await reorged(replacedFrom - 1n)
  }

  /** Looks for a receipt of every tx signed at the slot's nonce; true when one was found. */
  async function lookup(slot: JournalSlot): Promise<boolean> {
    for (const tx of journal.txs(slot.nonce).reverse()) {
      const raw = (await client.request({ method: 'eth_getTransactionReceipt', params: [tx.hash] })) as RpcTransactionReceipt | null
      if (raw) {
        await resolveMined([{ tx, receipt: minedReceipt(raw) }])
        return true
      }
    }
    return false
  }

  /**
   * The slots' txs looked up as of block `at`, consistently: block `at` and every tx's
   * receipt asked in one JSON-RPC batch (which a load balancer hands to one node), so a
   * node behind `at` cannot answer "no receipt" for a tx it has not seen yet. Mined txs
   * (in a block at or below `at`) resolve their slots. `lagging`: that node does not have
   * block `at`; nothing can be told from it. `unmined`: the nonces none of whose txs has a
   * receipt there.
   */
  async function lookupAt(slots: readonly JournalSlot[], at: bigint): Promise<{ lagging: true } | { lagging: false; unmined: number[] }> {
    const asked = slots.flatMap((slot) => journal.txs(slot.nonce).map((tx) => ({ slot, tx })))
    const read = (via: PublicClient) =>
      Promise.all([
        via.request({ method: 'eth_getBlockByNumber', params: [`0x${at.toString(16)}`, false] }) as Promise<{ hash?: Hex } | null>,
        ...asked.map(({ tx }) => via.request({ method: 'eth_getTransactionReceipt', params: [tx.hash] }) as Promise<RpcTransactionReceipt | null>),
      ] as const)
    const [block, ...receipts] = await inBatch(read, () => read(client))
    if (!block?.hash) return { lagging: true }
    const mined: Mined[] = []
    const found = new Set<number>()
    for (const [i, { tx }] of asked.entries()) {
      const raw = receipts[i] as RpcTransactionReceipt | null | undefined
      if (!raw || BigInt(raw.blockNumber ?? '0x0') > at || found.has(tx.nonce)) continue
      mined.push({ tx, receipt: minedReceipt(raw) })
      found.add(tx.nonce)
    }
    if (mined.length > 0) await resolveMined(mined)
    return { lagging: false, unmined: slots.map((slot) => slot.nonce).filter((nonce) => !found.has(nonce)) }
  }

  /**
   * The head and `address`'s nonce there, from one node (one JSON-RPC batch): a pair that
   * agree. A node that takes no batches is asked the head, then the nonce at that block.
   */
  async function nonceAtHead(address: Hex): Promise<{ at: bigint; nonce: number }> {
    const read = async (via: PublicClient) => {
      const [head, count] = await Promise.all([
        via.request({ method: 'eth_blockNumber' }) as Promise<Hex>,
        via.request({ method: 'eth_getTransactionCount', params: [address, 'latest'] }) as Promise<Hex>,
      ])
      return { at: BigInt(head), nonce: Number(BigInt(count)) }
    }
    return inBatch(read, async () => {
      const at = await client.getBlockNumber({ cacheTime: 0 })
      return { at, nonce: await client.getTransactionCount({ address, blockNumber: at }) }
    })
  }

  /** Every pending slot looked up, a few at a time (not one round trip after another). */
  async function lookupAll(): Promise<void> {
    const slots = journal.pending(256)
    for (let i = 0; i < slots.length; i += 16) await Promise.all(slots.slice(i, i + 16).map(lookup))
  }

  /**
   * The head, and with it (one batch) the tx hashes of the block after the last one seen,
   * which is most often the only new one. No block: it did not exist when the node read
   * it (it may have been mined since: read again with the rest). When that block is
   * known to exist (`knownHead`, pushed by the head feed), its logs from the contracts
   * the pending slots call ride in the same batch, so a look at a block holding the
   * key's txs is one round trip too.
   */
  async function headAndNext(knownHead: bigint | undefined): Promise<{ head: bigint; next?: BlockTxs }> {
    const after = lastSeen
    if (after === undefined || !blockLooks || !batching()) return { head: await client.getBlockNumber({ cacheTime: 0 }) }
    const callees = knownHead !== undefined && knownHead > after ? journal.pendingCallees() : []
    return inBatch(
      async (via) => {
        const [head, next, logs] = await Promise.all([
          via.request({ method: 'eth_blockNumber' }).then((hex) => BigInt(hex as string)),
          blockTxs(via, after + 1n).catch((error: unknown) => {
            if (!isUnsupported(error)) throw error
            withoutBlockLooks()
            return null
          }),
          callees.length > 0 ? blockLogs(via, after + 1n, callees) : undefined,
        ])
        return next ? { head, next: withLogs(next, logs) } : { head }
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
      // A method the node does not have is not a batching problem: no second try.
      if (isUnsupported(error)) throw error
      failure = error
    }
    const result = await single()
    if (++batchFailures >= 3) {
      batchFailures = Number.NaN
      logger.info(`receipt watcher: the RPC failed a JSON-RPC batch three times while single calls worked (${errorLine(failure)}); looking without batches from now on`)
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
    /** One look: new blocks since the last look, their txs matched to pending slots. `knownHead`: the newest head the feed pushed. */
    async tick(knownHead?: bigint): Promise<void> {
      if (journal.pendingCount() === 0 && journal.unconfirmedCount() === 0) return readCosts()
      const { head, next } = await headAndNext(knownHead)
      // A head below the last one read: the chain went back (a reorg, a reverted snapshot).
      if (lastSeen !== undefined && head < lastSeen) await reorged(head)
      const from = lastSeen === undefined ? head : lastSeen + 1n
      if (head >= from) {
        if (lastSeen !== undefined) pace.headMoved()
        if (!blockLooks || head - from >= BigInt(mostBlocksPerLook)) {
          await lookupAll()
        } else {
          let looked: { reorgBelow?: bigint }
          try {
            looked = await byBlocks(from, head, next?.number === from ? new Map([[from, next]]) : undefined)
          } catch (error) {
            if (!isUnsupported(error)) throw error
            withoutBlockLooks()
            await lookupAll()
            looked = {}
          }
          // Dealt with, the next look reads on from the fork point.
          if (looked.reorgBelow !== undefined) return reorged(looked.reorgBelow)
        }
        lastSeen = head
      }
      await confirmDeep(head)
      await readCosts()
    },
    lookup,
    lookupAt,
    nonceAtHead,
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
      let given: JournalSlot | undefined
      let wake!: (slot?: JournalSlot) => void
      const woken = new Promise<void>((resolve) => {
        wake = (slot) => {
          given = slot
          resolve()
        }
      })
      let set = waiters.get(nonce)
      if (!set) waiters.set(nonce, (set = new Set()))
      set.add(wake)
      await Promise.race([woken, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))])
      clearTimeout(timer)
      set.delete(wake)
      return given ?? journal.slot(nonce)
    },
  }
}

export type ReceiptWatcher = ReturnType<typeof createReceiptWatcher>
