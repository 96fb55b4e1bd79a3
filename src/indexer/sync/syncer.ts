import type { PublicClient } from 'viem'
import type { Logger } from '../../shared/index.ts'
import type { ActivityEvent } from '../../wire/index.ts'
import type { IndexerConfig } from '../config.ts'
import { createLogDecoder } from './decode.ts'
import { createEventLog } from './eventLog.ts'
import { createRangeSizer, describeError } from './fetchLogs.ts'
import { ChainMovedError, indexRange } from './indexRange.ts'
import { createOutageLog } from './outage.ts'
import { checkReorg, createBlockHashes } from './reorg.ts'

/** What the snapshot is built from. `generation` changes whenever the events or `indexedThrough` do. */
export type SyncStatus = {
  indexedThrough: bigint
  /** The last head read, undefined until the node answered once. */
  head: bigint | undefined
  /** When the head was last read (ms, from `now`). */
  headReadAt: number | undefined
  events: readonly ActivityEvent[]
  truncated: boolean
  generation: number
}

export type SyncerParameters = {
  client: PublicClient
  config: IndexerConfig
  logger: Logger
  now: () => number
  /** Told of each reorg: the fork point and how many indexed blocks were rewound (metrics). */
  onReorg?: (forkPoint: bigint, depth: number) => void
}

/**
 * Follows the registry contracts' logs: backfills from `deployedAt` in adaptive
 * ranges, then follows the head every `pollMs`; rewinds on a reorg; never throws
 * out of a tick (an RPC failure is logged once per outage and retried).
 *
 * @example
 * const syncer = createSyncer({ client, config, logger, now: Date.now })
 * await syncer.syncOnce() // or syncer.start() … await syncer.stop()
 */
export function createSyncer({ client, config, logger, now, onReorg }: SyncerParameters) {
  const sizer = createRangeSizer(config.maxRange)
  const hashes = createBlockHashes(config.reorgWindow)
  const eventLog = createEventLog(config.retention)
  const decode = createLogDecoder(config.addresses)
  const outages = createOutageLog(logger)
  const floor = config.deployedAt > 0n ? config.deployedAt - 1n : 0n
  let next = config.deployedAt
  let head: bigint | undefined
  let headReadAt: number | undefined
  let generation = 0
  let chainChecked = false
  let halted = false
  let running: Promise<void> | undefined
  let loop: Promise<void> | undefined
  let wake: (() => void) | undefined

  const indexedThrough = () => (next > 0n ? next - 1n : 0n)

  /** Reads the chain head; false (logged once per outage) when the node does not answer. */
  async function refreshHead(): Promise<boolean> {
    try {
      head = await client.getBlockNumber({ cacheTime: 0 })
      headReadAt = now()
      outages.recovered('head', `node answers again (head ${head}); catching up from block ${next}`)
      return true
    } catch (error) {
      outages.failed('head', `cannot read the chain head (${describeError(error)}); serving the last snapshot, indexed through ${indexedThrough()}, until the node answers`)
      return false
    }
  }

  async function rewindIfReorged() {
    const check = await checkReorg(client, hashes)
    if (!check.reorged) return
    const fork = check.forkPoint > floor ? check.forkPoint : floor
    onReorg?.(fork, Number(indexedThrough() - fork))
    const dropped = eventLog.dropAbove(fork)
    hashes.dropAbove(fork)
    next = fork + 1n
    generation++
    const depth = check.deep ? ` (deeper than the ${config.reorgWindow} kept block hashes)` : ''
    logger.warn(`indexer: reorg above block ${fork}${depth}: dropped ${dropped} orphaned events, re-indexing`)
  }

  async function step(currentHead: bigint) {
    const upper = next + sizer.size - 1n
    const range = await indexRange(client, {
      address: config.addresses,
      fromBlock: next,
      toBlock: upper < currentHead ? upper : currentHead,
      windowStart: currentHead - BigInt(config.reorgWindow) + 1n,
      sizer,
      hashes,
      decode,
      keep: config.retention,
    })
    eventLog.append(range.events, range.skipped)
    for (const [block, hash] of range.blockHashes) hashes.set(block, hash)
    next = range.toBlock + 1n
    generation++
  }

  async function tick() {
    if (!(await refreshHead())) return
    try {
      if (!chainChecked) {
        const chainId = await client.getChainId()
        if (chainId !== config.chainId) {
          outages.failed('chain', `the node serves chain ${chainId}, not ${config.chainId}: not indexing`)
          return
        }
        chainChecked = true
      }
      await rewindIfReorged()
      let moves = 0
      while (!halted) {
        if (headReadAt !== undefined && now() - headReadAt > config.pollMs && !(await refreshHead())) return
        if (head === undefined || next > head) break
        try {
          await step(head)
        } catch (error) {
          if (!(error instanceof ChainMovedError) || ++moves > 3) throw error
          await rewindIfReorged()
          if (!(await refreshHead())) return
        }
      }
      outages.recovered('sync', `indexing again, through block ${indexedThrough()}`)
    } catch (error) {
      outages.failed('sync', `indexing stalled at block ${next} (${describeError(error)}); retrying every ${config.pollMs} ms`)
    }
  }

  function syncOnce(): Promise<void> {
    running ??= tick().finally(() => {
      running = undefined
    })
    return running
  }

  function rest(ms: number) {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => resolve(), ms)
      wake = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  }

  return {
    /** One sync tick: read the head, rewind a reorg, index up to the head. Never throws. */
    syncOnce,
    /** Reads the head only (no indexing): lag shows how far behind the index is. */
    refreshHead,
    status(): SyncStatus {
      return { indexedThrough: indexedThrough(), head, headReadAt, events: eventLog.events, truncated: eventLog.truncated, generation }
    },
    /** Starts the loop: a tick, then `pollMs` of rest, until `stop`. */
    start() {
      if (loop) return
      halted = false
      loop = (async () => {
        while (!halted) {
          await syncOnce()
          if (!halted) await rest(config.pollMs)
        }
      })()
    },
    /** Stops the loop; waits briefly for a tick in flight (an RPC call may hang up to its timeout). */
    async stop() {
      halted = true
      wake?.()
      const current = loop
      loop = undefined
      if (!current) return
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([current, new Promise<void>((resolve) => (timer = setTimeout(resolve, 2_000)))])
      clearTimeout(timer)
    },
  }
}

export type Syncer = ReturnType<typeof createSyncer>
