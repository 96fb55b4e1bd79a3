import type { PublicClient, RpcTransactionReceipt } from 'viem'
import type { Logger } from '../../shared/index.ts'
import type { BlockPace } from './blockPace.ts'
import { createCanonicalBlocks } from './canonicalBlocks.ts'
import { type ChainReads, isUnsupported } from './chainReads.ts'
import { type BlockTxs, blockLogs, blockTxs, minedTxs, withLogs } from './minedTxs.ts'
import type { SlotLife } from './slotLife.ts'
import type { SlotLookups } from './slotLookups.ts'

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
  /** How the chain is read (one JSON-RPC batch for what must agree, see chainReads.ts). */
  reads: ChainReads
  /** Where the mined txs found are resolved (slotLookups.ts). */
  lookups: SlotLookups
  /** The slots' states and moves (slotLife.ts). */
  life: SlotLife
  logger: Logger
  /** Where the pace of blocks is kept (shared with the nonce keeper). */
  pace: BlockPace
  /** Blocks deep a mined tx's block must be before its slot is final; until then it is watched for reorgs (default 1). */
  confirmations?: number
}) {
  const { reads, lookups, life, logger, pace } = options
  const { journal } = life
  const client = reads.client
  const inBatch = reads.inBatch
  const batching = reads.batching
  const confirmations = BigInt(Math.max(1, options.confirmations ?? 1))
  // The blocks read, to tell a reorg: a block whose parent is not the one kept below it.
  const canonical = createCanonicalBlocks(Number(confirmations) + 128)
  let lastSeen: bigint | undefined
  let blockLooks = true

  function withoutBlockLooks() {
    if (!blockLooks) return
    blockLooks = false
    logger.info("the RPC has no eth_getLogs by block hash (or no eth_getBlockByNumber); looking receipts up per pending tx")
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
    await lookups.resolveMined(mined, slots)
    return {}
  }

  /**
   * The chain was reorganised at or below `below`: the fork point is the highest block kept
   * whose hash the chain still has (read in batches, highest first). Every mined tx of the
   * key above it is looked up again: one the chain holds elsewhere with the same outcome
   * keeps its slot, in its new block; one the chain no longer holds, or holds with another
   * outcome (mined again after its order expired: a revert where it succeeded), makes its
   * slot pending again (journal.reopen): the next look resolves it from its new block, or
   * the nonce keeper sends it again as signed or fills it. Looks go on from the fork point.
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
    for (const [i, { nonce, status }] of mined.entries()) {
      const receipt = receipts[i]
      // Mined again, the same tx can end otherwise: an order that expired, or was settled, in between reverts.
      const same = receipt && (receipt.status === '0x1') === (status !== 'reverted')
      if (same && receipt.blockHash && receipt.blockNumber) life.moved(nonce, BigInt(receipt.blockNumber), receipt.blockHash)
      else gone.push(nonce)
    }
    if (gone.length === 0) return
    life.reorged(gone)
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
    life.confirmed(final)
    if (replacedFrom !== undefined) await reorged(replacedFrom - 1n)
  }

  /** Every pending slot looked up, a few at a time (not one round trip after another). */
  async function lookupAll(): Promise<void> {
    const slots = journal.pending(256)
    for (let i = 0; i < slots.length; i += 16) await Promise.all(slots.slice(i, i + 16).map(lookups.lookup))
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
    /** The newest block a look has read (undefined before the first). */
    get head(): bigint | undefined {
      return lastSeen
    },
  }
}

export type ReceiptWatcher = ReturnType<typeof createReceiptWatcher>
