import type { Hash } from 'viem'
import { ConfigError } from '../../shared/index.ts'
import type { ActivityEvent } from '../../wire/index.ts'

/** The last indexed block and its hash: where a restart resumes, once the hash is still the chain's. */
export type Checkpoint = { block: bigint; hash: Hash }

/** An event as stored: the wire event plus the hash of the block it was read from (reorg evidence). */
export type StoredEvent = { event: ActivityEvent; blockHash: Hash }

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
  /** Events of the range, all after the current checkpoint. */
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
  /** Appends one range and moves the checkpoint, in one transaction; keeps the newest `retention` events. */
  commit(batch: StoreCommit): Promise<void>
  /**
   * Every block hash the store knows at or below `block`, ascending: the recent
   * window and the blocks its events came from. Bisected to find a fork point.
   */
  knownHashes(block: bigint): Promise<(readonly [bigint, Hash])[]>
  /** Forgets everything above `to` (undefined: everything) and makes it the checkpoint; returns the events dropped. */
  rewind(to: Checkpoint | undefined): Promise<number>
  close(): Promise<void>
}

/** The store file belongs to another chain or address set (a configuration problem: INDEXER_DB). */
export class StoreMismatchError extends ConfigError {
  override name = 'StoreMismatchError'
}
