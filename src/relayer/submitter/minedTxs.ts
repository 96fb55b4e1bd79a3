import { formatTransactionReceipt, type Hex, type PublicClient, type RpcTransactionReceipt, toHex } from 'viem'
import type { JournalReads, JournalSlot, JournalTx } from '../journal/index.ts'

/** A log as decoding reads it. */
export type MinedLog = { address: Hex; topics: readonly Hex[]; data: Hex }

/**
 * What the receipt watcher knows of a mined tx of the key. A success proven by its logs
 * carries the logs of the contracts it called, not its gas; a revert, or any tx read from
 * its receipt, carries its gas too.
 */
export type MinedReceipt = {
  transactionHash: Hex
  blockNumber: bigint
  /** The hash of the block it was mined in. */
  blockHash?: Hex
  logs: readonly MinedLog[]
  /** Wei per gas paid, when read from the receipt. */
  effectiveGasPrice?: bigint
} & (
  | { status: 'success'; gasUsed?: bigint }
  | { status: 'reverted'; gasUsed: bigint }
)

/** A log as the node sends it, with the tx and the block it came from. */
export type RpcLog = { address: Hex; topics: Hex[]; data: Hex; transactionHash: Hex; blockHash: Hex }

/**
 * A block as the watcher reads it: its hash and its txs' hashes, in block order, and,
 * when they came with it, its logs from every contract a pending slot calls.
 */
export type BlockTxs = { number: bigint; hash: Hex; parentHash?: Hex; transactions: readonly Hex[]; logs?: readonly RpcLog[] }

/** A mined tx of the journal, with what it did. */
export type Mined = { tx: JournalTx; receipt: MinedReceipt }

/** The block's hash and tx hashes (`eth_getBlockByNumber` without the txs' bodies); null while the node has no such block. */
export async function blockTxs(via: PublicClient, number: bigint): Promise<BlockTxs | null> {
  const raw = (await via.request({ method: 'eth_getBlockByNumber', params: [toHex(number), false] })) as { hash?: Hex | null; parentHash?: Hex; transactions?: unknown[] } | null
  if (!raw?.hash || !Array.isArray(raw.transactions)) return null
  // Without bodies the node lists hashes; a node that sent bodies anyway still names each one's hash.
  const transactions = raw.transactions.map((each) => (typeof each === 'string' ? each : (each as { hash: Hex }).hash).toLowerCase() as Hex)
  return { number, hash: raw.hash, ...(raw.parentHash ? { parentHash: raw.parentHash } : {}), transactions }
}

/**
 * The logs of block `number` from these contracts, asked by number so they can ride in
 * the same batch as the block itself; undefined when the node fails the call. Pair them
 * with the block only when they name its hash (`withLogs`).
 */
export async function blockLogs(via: PublicClient, number: bigint, addresses: readonly Hex[]): Promise<RpcLog[] | undefined> {
  try {
    return (await via.request({ method: 'eth_getLogs', params: [{ fromBlock: toHex(number), toBlock: toHex(number), address: [...addresses] }] })) as RpcLog[]
  } catch {
    return undefined
  }
}

/** The block with these logs, when each of them came from it (a reorg between the two calls, or none at all, leaves the logs out). */
export function withLogs(block: BlockTxs, logs: readonly RpcLog[] | undefined): BlockTxs {
  return logs?.every((log) => log.blockHash?.toLowerCase() === block.hash.toLowerCase()) ? { ...block, logs } : block
}

/** A receipt as the node sent it, as the watcher keeps it. */
export function minedReceipt(raw: RpcTransactionReceipt): MinedReceipt {
  const receipt = formatTransactionReceipt(raw)
  const common = {
    transactionHash: receipt.transactionHash,
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    logs: receipt.logs,
    gasUsed: receipt.gasUsed,
    effectiveGasPrice: receipt.effectiveGasPrice,
  }
  return receipt.status === 'success' ? { ...common, status: 'success' } : { ...common, status: 'reverted' }
}

/**
 * The journal's txs that these blocks hold, in block order, with what each did, and the
 * slots they belong to. A block's logs from the contracts the pending slots call (each
 * slot's `to` and adapter) prove those txs succeeded: a reverted tx leaves no log. Only a tx
 * with no such log (a revert, a filler, a call that logged nowhere it was expected to) is
 * asked for its receipt. A block of 256 settlements thus costs the node its tx hashes and
 * their logs, not 256 receipts: on anvil ~1 ms + ~10 ms against ~55 ms. A tx whose receipt the node does not give is left out: its slot
 * stays pending, and the nonce keeper looks it up by hash (nonceKeeper.ts).
 *
 * @example
 * const block = await blockTxs(client, 123n)
 * const { mined, slots } = block ? await minedTxs([block], { journal, via: client }) : { mined: [], slots: new Map() }
 */
export async function minedTxs(blocks: readonly BlockTxs[], options: { journal: JournalReads; via: PublicClient }): Promise<{ mined: Mined[]; slots: Map<number, JournalSlot> }> {
  const { journal, via } = options
  const txs = journal.txsByHash(blocks.flatMap((block) => block.transactions))
  if (txs.size === 0) return { mined: [], slots: new Map() }
  const slots = journal.slots([...new Set([...txs.values()].map((tx) => tx.nonce))])
  // Only a pending slot's tx is resolved: one resolved meanwhile (by the nonce keeper) needs neither logs nor receipt.
  const pending = (hash: Hex) => {
    const tx = txs.get(hash)
    return tx && slots.get(tx.nonce)?.status === 'pending' ? [tx] : []
  }
  const ours = blocks.map((block) => ({ block, txs: block.transactions.flatMap(pending) })).filter((each) => each.txs.length > 0)
  // A block whose logs came with it (the pushed head's batch) needs no second read of the callees.
  const callees = ours.some(({ block }) => !block.logs) ? journal.pendingCallees() : []
  const logs = await Promise.all(ours.map(({ block }) => logsOf(via, block, callees)))
  const mined: Array<Mined | JournalTx> = []
  for (const [i, { block, txs }] of ours.entries()) {
    const byTx = new Map<Hex, MinedLog[]>()
    for (const log of logs[i]!) {
      const hash = log.transactionHash.toLowerCase() as Hex
      let logged = byTx.get(hash)
      if (!logged) byTx.set(hash, (logged = []))
      logged.push({ address: log.address, topics: log.topics, data: log.data })
    }
    for (const tx of txs) {
      const logged = byTx.get(tx.hash)
      mined.push(logged ? { tx, receipt: { status: 'success', transactionHash: tx.hash, blockNumber: block.number, blockHash: block.hash, logs: logged } } : tx)
    }
  }
  // The rest are read from their receipts, together (one batch with a batching client).
  const unlogged = mined.filter((each): each is JournalTx => !('receipt' in each))
  const receipts = await Promise.all(unlogged.map((tx) => via.request({ method: 'eth_getTransactionReceipt', params: [tx.hash] }) as Promise<RpcTransactionReceipt | null>))
  const read = new Map(unlogged.map((tx, i) => [tx, receipts[i]] as const))
  return {
    mined: mined.flatMap((each): Mined[] => {
      if ('receipt' in each) return [each]
      const raw = read.get(each)
      return raw ? [{ tx: each, receipt: minedReceipt(raw) }] : []
    }),
    slots,
  }
}

/**
 * The block's logs from the contracts the pending slots call (`Journal.pendingCallees`):
 * those that came with the block, else asked by its hash, the logs of the very block
 * whose txs were read.
 */
function logsOf(via: PublicClient, block: BlockTxs, addresses: readonly Hex[]): Promise<readonly RpcLog[]> {
  if (block.logs) return Promise.resolve(block.logs)
  if (addresses.length === 0) return Promise.resolve([])
  return via.request({ method: 'eth_getLogs', params: [{ blockHash: block.hash, address: [...addresses] }] }) as Promise<RpcLog[]>
}
