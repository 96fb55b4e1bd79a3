import type { Address, Hash, PublicClient } from 'viem'
import type { ActivityEvent } from '../../wire/index.ts'
import type { Checkpoint, StoredEvent } from '../store/index.ts'
import { ChainMovedError } from './chainMoved.ts'
import type { DecodableLog } from './decode.ts'
import { fetchLogs, type RangeSizer } from './fetchLogs.ts'
import { keptLogs } from './keptLogs.ts'
import { canonicalHash } from './reorg.ts'

export { ChainMovedError }

/** The part of a block header the sync needs. */
export type Header = { number: bigint; hash: Hash; parentHash: Hash }

export type IndexRangeParameters = {
  address: readonly Address[]
  fromBlock: bigint
  /** Upper bound of the range; the sizer may make it shorter. */
  toBlock: bigint
  /** The last indexed block (undefined: nothing indexed yet). */
  checkpoint: Checkpoint | undefined
  /** `toBlock`'s header when already read (the head, read at the start of the tick). */
  top?: Header | undefined
  /** The checkpoint was found on the chain after `top` was read: no need to check it again. */
  checkpointProven?: boolean
  sizer: RangeSizer
  decode: (log: DecodableLog) => ActivityEvent | undefined
  /** Decode at most this many events, the newest: older ones would fall off the retention at once. */
  keep?: number
}

/**
 * `end`: the new checkpoint (the range's last block and its hash); `skipped`: events
 * of the range left undecoded because `keep` newer ones follow them.
 */
export type IndexedRange = { toBlock: bigint; end: Checkpoint; events: StoredEvent[]; skipped: number }

/**
 * Indexes one block range with one `eth_getLogs` and at most two header reads: the
 * header of the range's last block is read BEFORE the logs (then, unless proven,
 * the checkpoint's, to know the range continues it), and becomes the
 * checkpoint whose hash the next tick checks against the chain. A reorg before the
 * header read gives logs and header of the new chain; one after it changes the
 * checkpoint's hash and is found by the next check; so an orphaned log never
 * stays unnoticed. Logs of the last block must carry its hash, and a one-block
 * range must continue the checkpoint (ChainMovedError otherwise). When the node
 * refuses the range and a shorter one is fetched, the shorter end's header is read
 * after the logs and the first header is checked to be still on the chain.
 *
 * @example
 * const { end, events } = await indexRange(client, { address, fromBlock, toBlock, checkpoint, sizer, decode })
 */
export async function indexRange(client: PublicClient, parameters: IndexRangeParameters): Promise<IndexedRange> {
  const { fromBlock, checkpoint } = parameters
  const top = parameters.top?.number === parameters.toBlock ? parameters.top : await readHeader(client, parameters.toBlock)
  // The range must continue the checkpoint: a child proves it by its parentHash; else the
  // checkpoint must still be on the chain now that the range's header was read.
  if (checkpoint && top.number === checkpoint.block + 1n && top.parentHash !== checkpoint.hash) {
    throw new ChainMovedError(`block ${top.number} does not continue block ${checkpoint.block} as indexed`)
  }
  if (checkpoint && top.number > checkpoint.block + 1n && !parameters.checkpointProven && (await canonicalHash(client, checkpoint.block)) !== checkpoint.hash) {
    throw new ChainMovedError(`block ${checkpoint.block} left the chain before block ${top.number} was indexed`)
  }

  const { logs, toBlock } = await fetchLogs(client, { address: parameters.address, fromBlock, toBlock: parameters.toBlock, sizer: parameters.sizer })
  let end = top
  if (toBlock < top.number) {
    end = await readHeader(client, toBlock)
    if ((await canonicalHash(client, top.number)) !== top.hash) throw new ChainMovedError(`block ${top.number} changed while its logs were read`)
  }

  const { logs: kept, skipped } = keptLogs(logs, end, parameters.keep)
  const events: StoredEvent[] = []
  for (const log of kept) {
    const event = parameters.decode(log)
    if (event) events.push({ event, blockHash: log.blockHash })
  }
  return { toBlock, end: { block: end.number, hash: end.hash }, events, skipped }
}

/** One block's header; ChainMovedError when the chain no longer reaches it. */
export async function readHeader(client: PublicClient, blockNumber: bigint): Promise<Header> {
  try {
    const block = await client.getBlock({ blockNumber })
    return { number: block.number as bigint, hash: block.hash as Hash, parentHash: block.parentHash }
  } catch (error) {
    if (error instanceof Error && error.name === 'BlockNotFoundError') throw new ChainMovedError(`block ${blockNumber} is no longer on the chain`)
    throw error
  }
}
