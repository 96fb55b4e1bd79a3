import type { Hex, PublicClient, RpcTransactionReceipt } from 'viem'
import type { Logger } from '../../shared/index.ts'
import { type JournalSlot, type JournalTx, parseEip1559, type SlotResolution } from '../journal/index.ts'
import type { BlockPace } from './blockPace.ts'
import type { ChainReads } from './chainReads.ts'
import { type Mined, type MinedReceipt, minedReceipt } from './minedTxs.ts'
import type { SlotLife } from './slotLife.ts'

/** What a mined tx means for its slot: the outcome JSON to store (see JournalSlot.outcome). */
export type DescribeOutcome = (slot: JournalSlot, receipt: MinedReceipt) => Promise<string | undefined>

/** The call a signed tx of the journal makes. */
function callOf(raw: Hex): Pick<JournalSlot, 'to' | 'data' | 'gas'> {
  const { to, data, gas } = parseEip1559(raw)
  return { to, data, gas }
}

/**
 * What the key's mined txs mean for their slots, written through the slot life (`mined`):
 * the receipt watcher hands it the txs a look found in blocks, and the nonce keeper asks it
 * to look up the txs of the slots it is about to act on.
 */
export function createSlotLookups(options: { reads: ChainReads; life: SlotLife; describe: DescribeOutcome; pace: BlockPace; logger: Logger }) {
  const { reads, life, pace, logger } = options
  const { journal } = life
  const client = reads.client

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

  /** Writes what the mined txs mean, in one commit (their waiters are woken). `read`: their slots, when already read. */
  async function resolveMined(mined: readonly Mined[], read?: Map<number, JournalSlot>): Promise<void> {
    const results: SlotResolution[] = []
    const slots = read ?? journal.slots(mined.map(({ tx }) => tx.nonce))
    for (const { tx, receipt } of mined) {
      const result = await resolution(tx, receipt, slots.get(tx.nonce))
      if (result) results.push(result)
    }
    if (results.length > 0) life.mined(results, slots)
  }

  return {
    resolveMined,
    /** Looks for a receipt of every tx signed at the slot's nonce; true when one was found. */
    async lookup(slot: JournalSlot): Promise<boolean> {
      for (const tx of journal.txs(slot.nonce).reverse()) {
        const raw = (await client.request({ method: 'eth_getTransactionReceipt', params: [tx.hash] })) as RpcTransactionReceipt | null
        if (raw) {
          await resolveMined([{ tx, receipt: minedReceipt(raw) }])
          return true
        }
      }
      return false
    },
    /**
     * The slots' txs looked up as of block `at`, consistently: block `at` and every tx's
     * receipt asked in one JSON-RPC batch (which a load balancer hands to one node), so a
     * node behind `at` cannot answer "no receipt" for a tx it has not seen yet. Mined txs
     * (in a block at or below `at`) resolve their slots. `lagging`: that node does not have
     * block `at`; nothing can be told from it. `unmined`: the nonces none of whose txs has a
     * receipt there, nor is mined by that node's own word (`eth_getTransactionByHash` with
     * a block number, asked in the same batch): a node can hold a mined tx and serve its
     * receipt only later (a receipt index behind its blocks), and a tx it says it mined is
     * the key's own, never another process's that took its nonce. `hash`: block `at`'s
     * hash there; `earlierHash`: the hash of block `earlier` (when asked) on that node's
     * chain, in the same batch, so a caller can tell whether an earlier look's head is still
     * part of the chain (a reorg replaces blocks at the same numbers).
     */
    async lookupAt(slots: readonly JournalSlot[], at: bigint, earlier?: bigint): Promise<{ lagging: true } | { lagging: false; unmined: number[]; hash: Hex; earlierHash?: Hex }> {
      const asked = slots.flatMap((slot) => journal.txs(slot.nonce).map((tx) => ({ slot, tx })))
      const blockAt = (via: PublicClient, number: bigint) => via.request({ method: 'eth_getBlockByNumber', params: [`0x${number.toString(16)}`, false] }) as Promise<{ hash?: Hex } | null>
      const read = (via: PublicClient) =>
        Promise.all([
          blockAt(via, at),
          earlier === undefined ? Promise.resolve(null) : blockAt(via, earlier),
          ...asked.map(({ tx }) => via.request({ method: 'eth_getTransactionReceipt', params: [tx.hash] }) as Promise<RpcTransactionReceipt | null>),
          ...asked.map(({ tx }) => via.request({ method: 'eth_getTransactionByHash', params: [tx.hash] }) as Promise<{ blockNumber?: Hex | null } | null>),
        ] as const)
      const [block, earlierBlock, ...answers] = await reads.inBatch(read, () => read(client))
      if (!block?.hash) return { lagging: true }
      const receipts = answers.slice(0, asked.length)
      // Mined by the node's own word, its receipt not served yet; a tx still in the pool proves nothing.
      const known = new Set(asked.flatMap(({ tx }, i) => ((answers[asked.length + i] as { blockNumber?: Hex | null } | null)?.blockNumber ? [tx.nonce] : [])))
      const mined: Mined[] = []
      const found = new Set<number>()
      for (const [i, { tx }] of asked.entries()) {
        const raw = receipts[i] as RpcTransactionReceipt | null | undefined
        if (!raw || BigInt(raw.blockNumber ?? '0x0') > at || found.has(tx.nonce)) continue
        mined.push({ tx, receipt: minedReceipt(raw) })
        found.add(tx.nonce)
      }
      if (mined.length > 0) await resolveMined(mined)
      const unmined = slots.map((slot) => slot.nonce).filter((nonce) => !found.has(nonce) && !known.has(nonce))
      return { lagging: false, unmined, hash: block.hash, ...(earlierBlock?.hash ? { earlierHash: earlierBlock.hash } : {}) }
    },
  }
}

export type SlotLookups = ReturnType<typeof createSlotLookups>
