import type { PublicClient } from 'viem'
import { errorLine, type Logger } from '../../shared/index.ts'
import type { ActivityEvent } from '../../wire/index.ts'
import type { IndexerConfig } from '../config.ts'
import type { Checkpoint, IndexerStore, Removal, ServedPosition, StoredEvent } from '../store/index.ts'
import { compareEvents, createLogDecoder } from './decode.ts'
import { createEventLog } from './eventLog.ts'
import { createRangeSizer } from './fetchLogs.ts'
import { ChainMovedError, type Header, indexRange } from './indexRange.ts'
import { createChangeHistory } from './history.ts'
import { createOutageLog } from './outage.ts'
import { canonicalHash, findForkPoint } from './reorg.ts'
import { createSignal } from './signal.ts'

/** What the snapshot is built from. `generation` changes whenever the events or `indexedThrough` do. */
export type SyncStatus = {
  indexedThrough: bigint
  /** The last head read, undefined until the node answered once. */
  head: bigint | undefined
  /** When the head was last read (ms, from `now`). */
  headReadAt: number | undefined
  /** The events held; reading them may parse events just restored from the store. */
  readonly events: readonly ActivityEvent[]
  /** How many events are held, without reading them. */
  eventCount: number
  /** Changes whenever `events` does. */
  eventsVersion: number
  /** `JSON.stringify(events)` when known without serializing (just restored from the store). */
  eventsJson?: string | undefined
  truncated: boolean
  generation: number
  /** False until the index reached the head once since this process started. */
  caughtUp: boolean
  /** True from a reorg found until the re-fetch reaches the head again. */
  repairing: boolean
}

export type SyncerParameters = {
  client: PublicClient
  config: IndexerConfig
  logger: Logger
  now: () => number
  store: IndexerStore
  /** Told of each reorg: the fork point and how many indexed blocks were rewound (metrics). */
  onReorg?: (forkPoint: bigint, depth: number) => void
}

/** What a read replica applies after a writer's commits (PostgreSQL `changesSince`, kind `after`). */
export type StoredChanges = {
  checkpoint: Checkpoint | undefined
  lastSeq: number
  floor: number
  removalsFloor: number
  events: readonly ActivityEvent[]
  seqs: readonly number[]
  removals: readonly Removal[]
}

/**
 * Follows the registry contracts' logs: resumes from the stored checkpoint (or
 * backfills from `deployedAt`) in adaptive ranges, then follows the head every
 * `pollMs`; repairs a reorg at any depth; writes every range to the store before
 * serving it; never throws out of a tick (an RPC failure is logged once per outage
 * and retried).
 *
 * RPC calls per tick while following: one `eth_getBlockByNumber("latest")`; when
 * new blocks came, one `eth_getLogs`, plus one header read of the checkpoint when
 * more than one block came (one new block is checked through its parentHash).
 *
 * @example
 * const syncer = createSyncer({ client, config, logger, now: Date.now, store })
 * await syncer.syncOnce() // or syncer.start() … await syncer.stop()
 */
export function createSyncer({ client, config, logger, now, store, onReorg }: SyncerParameters) {
  const sizer = createRangeSizer(config.maxRange)
  const eventLog = createEventLog(config.retention)
  const history = createChangeHistory()
  /** Notified whenever what is served changes: events, a rewind, the checkpoint, the head. */
  const signal = createSignal()
  const decode = createLogDecoder(config.addresses)
  const outages = createOutageLog(logger)
  let next = config.deployedAt
  let checkpoint: Checkpoint | undefined
  let head: bigint | undefined
  let headHeader: Header | undefined
  /** The checkpoint hash found on the chain after `headHeader` was read (reset by each head read). */
  let provenCheckpoint: string | undefined
  let headReadAt: number | undefined
  let generation = 0
  let caughtUp = false
  let repairing = false
  let chainChecked = false
  let halted = false
  let loaded: Promise<void> | undefined
  let running: Promise<void> | undefined
  let loop: Promise<void> | undefined
  let wake: (() => void) | undefined

  const indexedThrough = () => (next > 0n ? next - 1n : 0n)

  /** Reads the stored checkpoint and events once; the first tick waits for it. */
  function load(): Promise<void> {
    loaded ??= (async () => {
      const state = await store.load(config.retention)
      eventLog.restore(() => state.events, state.eventCount, state.truncated, state.eventsJson, state.seqs)
      history.restore(state.history)
      if (state.checkpoint) {
        checkpoint = state.checkpoint
        next = state.checkpoint.block + 1n
        logger.info(`indexer: resuming after block ${state.checkpoint.block} from ${store.location} (${state.eventCount} events held); its hash is checked against the chain first`)
      }
      changed()
    })()
    return loaded
  }

  /** Something served changed: a new snapshot generation, and a wake-up for the streams. */
  function changed() {
    generation++
    signal.notify()
  }

  /**
   * Serves the store's current state instead of what this process held: a read
   * replica following the writer, or a standby about to write (it resumes from the
   * stored checkpoint, which the previous writer may have moved).
   */
  async function reload(): Promise<void> {
    const state = await store.load(config.retention)
    eventLog.restore(() => state.events, state.eventCount, state.truncated, state.eventsJson, state.seqs)
    history.restore(state.history)
    checkpoint = state.checkpoint
    next = state.checkpoint ? state.checkpoint.block + 1n : config.deployedAt
    loaded = Promise.resolve()
    changed()
  }

  /**
   * Applies what a writer committed after the served position (a read replica
   * following it): the removals first (every held event at or above the lowest block
   * a removal names went with it), then the events added since, with their numbers.
   */
  function applyStored(changes: StoredChanges) {
    if (changes.removals.length > 0) {
      let lowest = BigInt(changes.removals[0]!.event.blockNumber)
      for (const removal of changes.removals) {
        const block = BigInt(removal.event.blockNumber)
        if (block < lowest) lowest = block
      }
      eventLog.dropAbove(lowest - 1n)
    }
    eventLog.append(changes.events, 0, changes.seqs)
    history.followed(changes.removals, changes)
    checkpoint = changes.checkpoint
    next = changes.checkpoint ? changes.checkpoint.block + 1n : config.deployedAt
    changed()
  }

  /** Reads the chain head's header; false (logged once per outage) when the node does not answer. */
  async function refreshHead(): Promise<boolean> {
    try {
      const block = await client.getBlock({ blockTag: 'latest' })
      headHeader = { number: block.number as bigint, hash: block.hash as `0x${string}`, parentHash: block.parentHash }
      provenCheckpoint = undefined
      // Streams are woken by a new head (or the first one, or one read again after it was unreadable), not by every read of the same.
      const moved = head !== headHeader.number || headReadAt === undefined || now() - headReadAt > config.headStaleMs
      head = headHeader.number
      headReadAt = now()
      if (moved) signal.notify()
      outages.recovered('head', `node answers again (head ${head}); catching up from block ${next}`)
      return true
    } catch (error) {
      outages.failed('head', `cannot read the chain head (${errorLine(error)}); serving the last snapshot, indexed through ${indexedThrough()}, until the node answers`)
      return false
    }
  }

  /** Whether the checkpoint is still the chain's; repairs the index when it is not. */
  async function verifyCheckpoint() {
    if (!checkpoint) return
    const top = headHeader
    // The head itself proves it for free when it is the checkpoint or its child.
    const proven =
      (top?.number === checkpoint.block && top.hash === checkpoint.hash) ||
      (top?.number === checkpoint.block + 1n && top.parentHash === checkpoint.hash) ||
      (await canonicalHash(client, checkpoint.block)) === checkpoint.hash
    if (proven) {
      provenCheckpoint = checkpoint.hash
      return
    }
    await repair(checkpoint)
  }

  /** The checkpoint left the chain: rewind to the highest stored block still on it (any depth), or to deployedAt. */
  async function repair(lost: Checkpoint) {
    repairing = true
    changed()
    const known = await store.knownHashes(lost.block)
    const fork = await findForkPoint(client, known)
    const to = fork.block !== undefined && fork.hash !== undefined ? { block: fork.block, hash: fork.hash } : undefined
    const rewound = await store.rewind(to)
    const dropped = eventLog.dropAbove(to ? to.block : config.deployedAt - 1n)
    history.rewound(rewound)
    checkpoint = to
    next = to ? to.block + 1n : config.deployedAt
    const forkPoint = to ? to.block : config.deployedAt - 1n
    onReorg?.(forkPoint, Number(lost.block - forkPoint))
    changed()
    if (!to) {
      logger.warn(
        `indexer: reorg below every stored block hash (block ${lost.block} is no longer the chain's; none of ${known.length} stored hashes is): dropped ${dropped} events, re-syncing from deployedAt ${config.deployedAt}; stale until caught up`,
      )
    } else if (lost.block - to.block > BigInt(config.reorgWindow)) {
      logger.warn(
        `indexer: reorg above block ${to.block}: dropped ${dropped} orphaned events, re-indexing (${lost.block - to.block} blocks deep, past the ${config.reorgWindow} kept block hashes: fork found among ${known.length} stored hashes in ${fork.probes} header reads; stale until caught up)`,
      )
    } else {
      logger.warn(`indexer: reorg above block ${to.block}: dropped ${dropped} orphaned events, re-indexing`)
    }
  }

  async function step(currentHead: bigint) {
    const upper = next + sizer.size - 1n
    const range = await indexRange(client, {
      address: config.addresses,
      fromBlock: next,
      toBlock: upper < currentHead ? upper : currentHead,
      checkpoint,
      top: headHeader,
      // Checked after this head was read (the tick's first range); later ranges check it again.
      checkpointProven: checkpoint !== undefined && provenCheckpoint === checkpoint.hash && upper >= currentHead,
      sizer,
      decode,
      keep: config.retention,
    })
    // The store numbers the events in the order given: chain order (a node may answer out of order).
    const events = inChainOrder(range.events) ? range.events : [...range.events].sort((a, b) => compareEvents(a.event, b.event))
    // Durable first: what is served is always what a restart finds.
    const committed = await store.commit({ events, hashes: [], checkpoint: range.end, truncated: range.skipped > 0 })
    const first = committed.lastSeq - events.length + 1
    eventLog.append(
      events.map((stored) => stored.event),
      range.skipped,
      events.map((_, i) => first + i),
    )
    history.committed(committed)
    checkpoint = range.end
    next = range.toBlock + 1n
    changed()
  }

  async function tick() {
    await load()
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
      await verifyCheckpoint()
      let moves = 0
      while (!halted) {
        if (headReadAt !== undefined && now() - headReadAt > config.pollMs && !(await refreshHead())) return
        if (head === undefined || next > head) break
        try {
          await step(head)
        } catch (error) {
          if (!(error instanceof ChainMovedError) || ++moves > 3) throw error
          if (!(await refreshHead())) return
          await verifyCheckpoint()
        }
      }
      if (head !== undefined && next > head) {
        caughtUp = true
        if (repairing) {
          repairing = false
          changed()
          logger.info(`indexer: reorg repaired, indexed through block ${indexedThrough()} again`)
        }
      }
      outages.recovered('sync', `indexing again, through block ${indexedThrough()}`)
    } catch (error) {
      outages.failed('sync', `indexing stalled at block ${next} (${errorLine(error)}); retrying every ${config.pollMs} ms`)
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
    /** Reads the store (checkpoint and events) once; `serve` waits for it before listening. */
    load,
    reload,
    applyStored,
    /** The checkpoint of what is served (undefined: nothing indexed). */
    checkpoint: () => checkpoint,
    /** Where what is served stands in the store's change history (a read replica asks for the changes after it). */
    position: (): ServedPosition => ({ historyId: history.id, seq: history.lastSeq, checkpoint }),
    /** The served events with their change numbers, and the history's removals: what a stream reads (stream/feed.ts). */
    changes: { log: eventLog, history },
    /** Resolves at the next change of what is served (events, checkpoint, head), or after `timeoutMs`. */
    nextChange: signal.next,
    /** One sync tick: read the head, repair a reorg, index up to the head. Never throws. */
    syncOnce,
    /** Reads the head only (no indexing): lag shows how far behind the index is. */
    refreshHead,
    status(): SyncStatus {
      return {
        indexedThrough: indexedThrough(),
        head,
        headReadAt,
        // Read when needed: events just restored from the store are parsed then (see eventLog.ts).
        get events() {
          return eventLog.events
        },
        eventCount: eventLog.count,
        eventsVersion: eventLog.version,
        eventsJson: eventLog.json,
        truncated: eventLog.truncated,
        generation,
        caughtUp,
        repairing,
      }
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
      const current = loop ?? running
      loop = undefined
      if (current) {
        let timer: ReturnType<typeof setTimeout> | undefined
        await Promise.race([current, new Promise<void>((resolve) => (timer = setTimeout(resolve, 2_000)))])
        clearTimeout(timer)
      }
      // A repair left unfinished is the next writer's to do: what is served is the store's again.
      if (repairing) {
        repairing = false
        changed()
      }
    },
  }
}

export type Syncer = ReturnType<typeof createSyncer>

function inChainOrder(events: readonly StoredEvent[]): boolean {
  for (let i = 1; i < events.length; i++) if (compareEvents(events[i - 1]!.event, events[i]!.event) > 0) return false
  return true
}
