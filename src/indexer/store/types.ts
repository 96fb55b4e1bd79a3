import type { Hash } from 'viem'
import { ConfigError } from '../../shared/index.ts'
import type { ActivityEvent } from '../../wire/index.ts'

/** The last indexed block and its hash: where a restart resumes, once the hash is still the chain's. */
export type Checkpoint = { block: bigint; hash: Hash }

/** An event as stored: the wire event plus the hash of the block it was read from (reorg evidence). */
export type StoredEvent = { event: ActivityEvent; blockHash: Hash }

/**
 * An event a reorg took away: `seq` is the rewind's change number, `addedSeq` the
 * number of the change that had added it (a stream client holds it only if its
 * cursor had passed that number).
 */
export type Removal = { seq: number; addedSeq: number; event: ActivityEvent }

/**
 * The change history (schema version 3): every added event has a number (`seq`), in
 * chain order, and every rewind one for the events it removed. A stream cursor is a
 * number of this history; `id` names the history, so a cursor of another index never
 * resumes here.
 */
export type StoredHistory = {
  id: string
  /** The newest change's number (0: no change yet). */
  lastSeq: number
  /** Events added at or below this number may have left (INDEXER_RETENTION): a cursor below it cannot resume exactly. */
  floor: number
  /** Removals at or below this number were forgotten (at most INDEXER_RETENTION removed events are kept). */
  removalsFloor: number
  /** The removals newer than both floors, oldest first. */
  removals: Removal[]
}

/** What a commit did to the history: its last number and the floor after retention. */
export type CommitResult = { lastSeq: number; floor: number }

/** What a rewind did: the events it removed (none: nothing changed, and `seq` is the store's last number). */
export type RewindResult = { seq: number; removed: Removal[]; removalsFloor: number }

/** What a restart resumes from. */
export type StoredState = {
  /** Undefined: nothing indexed yet (start at deployedAt). */
  checkpoint: Checkpoint | undefined
  /** Whether events were ever dropped for retention. */
  truncated: boolean
  /**
   * The newest events (at most the `limit` asked for), in chain order: parsed from
   * `eventsJson` when first read (see `lazyEvents`), so a restart that serves the text
   * never builds the objects before it must.
   */
  readonly events: ActivityEvent[]
  /** How many events `events` holds (known without parsing them). */
  eventCount: number
  /** `JSON.stringify(events)`, built from the stored text (a restart serves it without serializing again). */
  eventsJson: string
  /** Each event's change number, in the same order (ascending: chain order is change order). */
  seqs: number[]
  history: StoredHistory
}

/**
 * A StoredState whose `events` are parsed from `eventsJson` once, when first read.
 * Parsing 50,000 events took ~30 ms of a ~190 ms restart, before its first answer,
 * which serves the text as it is.
 */
export function lazyEvents(state: Omit<StoredState, 'events'>): StoredState {
  let parsed: ActivityEvent[] | undefined
  return {
    ...state,
    get events() {
      parsed ??= JSON.parse(state.eventsJson) as ActivityEvent[]
      return parsed
    },
  }
}

/** One indexed range, written atomically. */
export type StoreCommit = {
  /** Events of the range, all after the current checkpoint, in chain order (numbered in that order). */
  events: readonly StoredEvent[]
  /** Block hashes learned on the way (range ends, the head). */
  hashes: readonly (readonly [bigint, Hash])[]
  checkpoint: Checkpoint
  truncated: boolean
}

/** What identifies an index: a store file never serves another chain's or address set's events. */
export type StoreIdentity = { chainId: number; addresses: readonly string[]; deployedAt: bigint }

/**
 * The indexer's durable state: events, the checkpoint with its block hash, and a
 * window of recent block hashes. Async so that a networked implementation
 * (PostgreSQL, same tables) fits behind it; the SQLite one answers at once.
 */
export interface IndexerStore {
  /** Where the data lives, for log lines: a file path or `:memory:`. */
  readonly location: string
  /** The checkpoint, the truncation flag and the newest `limit` events. */
  load(limit: number): Promise<StoredState>
  /** Appends one range and moves the checkpoint, in one transaction; keeps the newest `retention` events; numbers the events. */
  commit(batch: StoreCommit): Promise<CommitResult>
  /**
   * Every block hash the store knows at or below `block`, ascending: the recent
   * window and the blocks its events came from. Bisected to find a fork point.
   */
  knownHashes(block: bigint): Promise<(readonly [bigint, Hash])[]>
  /** Forgets everything above `to` (undefined: everything) and makes it the checkpoint; records the events dropped as one removal. */
  rewind(to: Checkpoint | undefined): Promise<RewindResult>
  close(): Promise<void>
}

/** The store file belongs to another chain or address set (a configuration problem: INDEXER_DB). */
export class StoreMismatchError extends ConfigError<'STORE_MISMATCH'> {
  override name = 'StoreMismatchError'
  constructor(message: string) {
    super(message, {}, 'STORE_MISMATCH')
  }
}
