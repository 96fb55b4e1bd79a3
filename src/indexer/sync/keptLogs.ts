import type { Hash, RpcLog } from 'viem'
import { ChainMovedError } from './chainMoved.ts'
import type { DecodableLog } from './decode.ts'

/** A log to decode, with the hash of the block it came from. */
export type KeptLog = DecodableLog & { blockHash: Hash }

/**
 * The logs of an `eth_getLogs` answer worth decoding: the live ones (neither
 * removed nor pending) in chain order, only the newest `keep` of them when there
 * are more (older ones would fall off the retention at once); `skipped` counts the
 * rest. A log of the range's last block must carry that block's hash
 * (ChainMovedError otherwise). Of a backfill's tens of thousands of logs, only the
 * kept ones get objects of their own: the others are checked where they lie.
 *
 * @example
 * const { logs, skipped } = keptLogs(answer, { number: 2000n, hash }, 10_000)
 */
export function keptLogs(answer: readonly RpcLog[], end: { number: bigint; hash: Hash }, keep?: number): { logs: KeptLog[]; skipped: number } {
  const live: RpcLog[] = []
  let ordered = true
  let lastHex: string | undefined
  let lastBlock = -1n
  let lastIndex = -1
  for (const log of answer) {
    // Falsy as viem's formatLog takes it: a pending or removed log is not indexed.
    if (log.removed || !log.blockNumber || !log.logIndex || !log.transactionHash || !log.blockHash) continue
    // Logs come block by block: each block number is parsed once.
    let blockNumber = lastBlock
    if (log.blockNumber !== lastHex) {
      blockNumber = BigInt(log.blockNumber)
      lastHex = log.blockNumber
    }
    if (blockNumber === end.number && log.blockHash !== end.hash) throw new ChainMovedError(`a log of block ${blockNumber} belongs to another fork`)
    const logIndex = Number(log.logIndex)
    if (blockNumber < lastBlock || (blockNumber === lastBlock && logIndex < lastIndex)) ordered = false
    lastBlock = blockNumber
    lastIndex = logIndex
    live.push(log)
  }
  const skipped = keep !== undefined && live.length > keep ? live.length - keep : 0
  const kept = skipped > 0 && !ordered ? inChainOrder(live) : live
  const logs: KeptLog[] = new Array(kept.length - skipped)
  for (let i = skipped; i < kept.length; i++) logs[i - skipped] = decodable(kept[i]!)
  return { logs, skipped }
}

/** What the decoder reads, with hex quantities parsed (as viem's formatLog gives them). */
function decodable(log: RpcLog): KeptLog {
  return {
    address: log.address,
    topics: log.topics,
    data: log.data,
    blockNumber: BigInt(log.blockNumber as string),
    logIndex: Number(log.logIndex),
    transactionHash: log.transactionHash as Hash,
    blockHash: log.blockHash as Hash,
  }
}

/** The logs sorted by block number, then log index (a node that answers out of order). */
function inChainOrder(logs: readonly RpcLog[]): RpcLog[] {
  return logs
    .map((log) => ({ log, blockNumber: BigInt(log.blockNumber as string), logIndex: Number(log.logIndex) }))
    .sort((a, b) => (a.blockNumber !== b.blockNumber ? (a.blockNumber < b.blockNumber ? -1 : 1) : a.logIndex - b.logIndex))
    .map((entry) => entry.log)
}
