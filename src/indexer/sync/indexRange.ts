import type { Address, Block, Hash, PublicClient } from 'viem'
import type { ActivityEvent } from '../../wire/index.ts'
import { type RangeSizer, fetchLogs } from './fetchLogs.ts'
import type { BlockHashes } from './reorg.ts'

/** The chain changed under a range being indexed (a reorg in progress): retry after a reorg check. */
export class ChainMovedError extends Error {
  override name = 'ChainMovedError'
}

export type IndexRangeParameters = {
  address: readonly Address[]
  fromBlock: bigint
  /** Upper bound of the range; the sizer may make it shorter. */
  toBlock: bigint
  /** Blocks from here on are near the head: their hashes are fetched, checked and kept. */
  windowStart: bigint
  sizer: RangeSizer
  hashes: BlockHashes
  decode: (log: Awaited<ReturnType<PublicClient['getLogs']>>[number]) => ActivityEvent | undefined
  /** Decode at most this many events, the newest: older ones would fall off the retention at once. */
  keep?: number
}

/** `skipped`: events of the range left undecoded because `keep` newer ones follow them. */
export type IndexedRange = { toBlock: bigint; events: ActivityEvent[]; blockHashes: [bigint, Hash][]; skipped: number }

/**
 * Indexes one block range. For blocks near the head the headers are read first and
 * must form one parent chain continuing the kept hashes, and every log must carry
 * its header's hash; otherwise the chain moved and ChainMovedError is thrown, so an
 * orphaned log never enters the snapshot. (Headers before logs: a log missing from
 * a block whose header was replaced is caught later, when the kept hash no longer
 * matches the chain.)
 *
 * @example
 * const { toBlock, events, blockHashes } = await indexRange(client, parameters)
 */
export async function indexRange(client: PublicClient, parameters: IndexRangeParameters): Promise<IndexedRange> {
  const { fromBlock, windowStart, hashes } = parameters
  const headerFrom = fromBlock > windowStart ? fromBlock : windowStart
  const headers = headerFrom <= parameters.toBlock ? await readHeaders(client, headerFrom, parameters.toBlock) : []

  let parent = hashes.get(headerFrom - 1n)
  for (const header of headers) {
    if (parent !== undefined && header.parentHash !== parent) {
      throw new ChainMovedError(`block ${header.number} does not continue block ${header.number! - 1n} as indexed`)
    }
    parent = header.hash!
  }

  const { logs, toBlock } = await fetchLogs(client, { address: parameters.address, fromBlock, toBlock: parameters.toBlock, sizer: parameters.sizer })
  const byNumber = new Map(headers.map((header) => [header.number!, header.hash!]))
  const live: typeof logs = []
  for (const log of logs) {
    if (log.removed || log.blockNumber === null || log.logIndex === null || log.transactionHash === null) continue
    const expected = byNumber.get(log.blockNumber)
    if (expected !== undefined && log.blockHash !== expected) {
      throw new ChainMovedError(`a log of block ${log.blockNumber} belongs to another fork`)
    }
    live.push(log)
  }
  // A range holding more events than the retention keeps: only the newest `keep` are decoded.
  const skipped = parameters.keep !== undefined && live.length > parameters.keep ? live.length - parameters.keep : 0
  if (skipped > 0 && !inChainOrder(live)) live.sort(compareLogs)
  const events: ActivityEvent[] = []
  for (let i = skipped; i < live.length; i++) {
    const event = parameters.decode(live[i]!)
    if (event) events.push(event)
  }
  const blockHashes = headers.filter((header) => header.number! <= toBlock).map((header): [bigint, Hash] => [header.number!, header.hash!])
  return { toBlock, events, blockHashes, skipped }
}

type Positioned = { blockNumber: bigint | null; logIndex: number | null }

function compareLogs(a: Positioned, b: Positioned): number {
  if (a.blockNumber !== b.blockNumber) return a.blockNumber! < b.blockNumber! ? -1 : 1
  return a.logIndex! - b.logIndex!
}

function inChainOrder(logs: readonly Positioned[]): boolean {
  for (let i = 1; i < logs.length; i++) if (compareLogs(logs[i - 1]!, logs[i]!) > 0) return false
  return true
}

async function readHeaders(client: PublicClient, from: bigint, to: bigint): Promise<Block[]> {
  const numbers: bigint[] = []
  for (let block = from; block <= to; block++) numbers.push(block)
  const headers: Block[] = []
  for (let i = 0; i < numbers.length; i += 16) {
    const chunk = numbers.slice(i, i + 16)
    headers.push(
      ...(await Promise.all(
        chunk.map((blockNumber) =>
          client.getBlock({ blockNumber }).catch((error: unknown) => {
            if (error instanceof Error && error.name === 'BlockNotFoundError') throw new ChainMovedError(`block ${blockNumber} is no longer on the chain`)
            throw error
          }),
        ),
      )),
    )
  }
  return headers
}
