import type { ActivityEvent, ActivityStreamStatus } from '../../wire/index.ts'
import type { IndexerConfig } from '../config.ts'
import { decodeCursor } from '../query/index.ts'
import type { ReplicaState } from '../readiness.ts'
import { freshness } from '../snapshot.ts'
import { compareBlocks } from '../sync/decode.ts'
import type { Syncer } from '../sync/syncer.ts'
import { decodeStreamCursor } from './cursor.ts'

/** What a stream sends: the query's filters (the same as `GET /activity`'s). */
export type StreamFilter = {
  names?: ReadonlySet<string>
  /** Lower-case addresses. */
  addresses?: ReadonlySet<string>
  fromBlock?: string
}

/**
 * Where a stream starts: after change `cursor`. The client may hold events added
 * after `base` and up to the cursor (0: any, a resumed stream; equal to the cursor: none
 * yet). `reset`: why the cursor given could not be resumed (the stream starts over).
 */
export type StreamStart = { cursor: number; base: number; reset?: string }

/** One message's worth of changes; `through` is the cursor after it. */
export type FeedItem = { kind: 'events' | 'removed'; events: ActivityEvent[]; through: number }

/**
 * What `GET /activity/stream` reads: the served events with their change numbers and
 * the history's removals (syncer.ts `changes`), the freshness `/activity` reports, and
 * a wake-up at each change. Every replica serves the same numbers (the store's), so a
 * cursor from one resumes on another, and nothing is buffered per stream: each stream
 * reads the changes after its own cursor when it is ready to write them.
 *
 * @example
 * const feed = createActivityFeed({ syncer, config, now: Date.now })
 * const start = feed.start(filter, lastEventId)
 * const { items, through } = feed.changesAfter(start, filter, 500)
 */
export function createActivityFeed({ syncer, config, now, replica }: { syncer: Syncer; config: IndexerConfig; now: () => number; replica?: () => ReplicaState | undefined }) {
  const { log, history } = syncer.changes
  /**
   * The changes read for one served state (one syncer generation), by filters and
   * cursor: a thousand streams at the same cursor read and serialize them once. Only
   * answers that no removal could change are kept (a removal depends on each stream's base).
   */
  let shared: { generation: number; byKey: Map<string, { items: FeedItem[]; through: number }> } = { generation: -1, byKey: new Map() }
  let status: { key: string; value: { status: ActivityStreamStatus; json: string } } | undefined

  const matches = (filter: StreamFilter, event: ActivityEvent) =>
    (filter.names === undefined || filter.names.has(event.name)) &&
    (filter.addresses === undefined || filter.addresses.has(event.address.toLowerCase())) &&
    (filter.fromBlock === undefined || compareBlocks(event.blockNumber, filter.fromBlock) >= 0)

  /** Replays the retained events from `first` (an index into the log): the client holds nothing yet. */
  function replayFrom(first: number): StreamStart {
    const seqs = log.seqs
    const cursor = first < seqs.length ? seqs[first]! - 1 : history.lastSeq
    return { cursor, base: cursor }
  }

  /** Index of the first retained event at or after `fromBlock` (0 without it). */
  function firstAtBlock(fromBlock: string | undefined): number {
    if (fromBlock === undefined) return 0
    const events = log.events
    let low = 0
    let high = events.length
    while (low < high) {
      const middle = (low + high) >> 1
      if (compareBlocks(events[middle]!.blockNumber, fromBlock) < 0) low = middle + 1
      else high = middle
    }
    return low
  }

  return {
    historyId: () => history.id,
    lastSeq: () => history.lastSeq,
    /** Resolves at the next change of what is served, after `timeoutMs`, or on `abort`. */
    next: (timeoutMs: number, abort?: AbortSignal) => syncer.nextChange(timeoutMs, abort),
    /** What the `status` message says (the freshness of `GET /activity`, and the replica's role), and its JSON; built once per state and quarter second. */
    status(): { status: ActivityStreamStatus; json: string } {
      const state = syncer.status()
      const role = replica?.()?.role
      const key = `${state.generation}:${state.head}:${state.headReadAt}:${role}:${Math.floor(now() / 250)}`
      if (status?.key !== key) {
        const { head, lagBlocks, stale } = freshness(config, state, now)
        const value: ActivityStreamStatus = { indexedThrough: state.indexedThrough.toString(), head: head.toString(), lagBlocks, stale, ...(role ? { role } : {}) }
        status = { key, value: { status: value, json: JSON.stringify(value) } }
      }
      return status.value
    },
    /**
     * Where a stream starts. A stream id of this history at or above its floors
     * resumes exactly; another id (another index, or older than the history keeps)
     * starts over with a reset, replaying the retained events from `fromBlock`; a
     * `GET /activity` cursor continues after that page's last event; nothing: from
     * `fromBlock` when given (the retained events first), else from now on.
     */
    start(filter: StreamFilter, cursor: string | undefined): StreamStart {
      if (cursor !== undefined) {
        const resumed = decodeStreamCursor(cursor)
        if (resumed) {
          if (resumed.historyId !== history.id) {
            return { ...replayFrom(firstAtBlock(filter.fromBlock)), reset: `cursor ${cursor} belongs to another change history (another index, or a store that was replaced): the retained events follow` }
          }
          if (resumed.seq < history.floor || resumed.seq < history.removalsFloor) {
            return {
              ...replayFrom(firstAtBlock(filter.fromBlock)),
              reset: `the changes after cursor ${cursor} are no longer all kept (INDEXER_RETENTION): the retained events follow`,
            }
          }
          // A cursor ahead of this replica (it came from one further on) waits for it to catch up.
          return { cursor: resumed.seq, base: 0 }
        }
        const position = decodeCursor(cursor)
        if (position) {
          const events = log.events
          let first = firstAtBlock(filter.fromBlock)
          while (first < events.length) {
            const event = events[first]!
            const byBlock = compareBlocks(event.blockNumber, position.block)
            if (byBlock > 0 || (byBlock === 0 && event.logIndex > position.logIndex)) break
            first++
          }
          return replayFrom(first)
        }
      }
      if (filter.fromBlock !== undefined) return replayFrom(firstAtBlock(filter.fromBlock))
      return { cursor: history.lastSeq, base: history.lastSeq }
    },
    /**
     * Whether a stream at `cursor` (holding events after `base`) can go on exactly:
     * the events added after its cursor are all still kept, and so are the removals it
     * may need (none when it holds nothing yet).
     */
    continuous(cursor: number, base: number): boolean {
      return cursor >= history.floor && (cursor >= history.removalsFloor || base >= cursor)
    },
    /**
     * The changes after `cursor` matching `filter`, in change order, as messages: runs
     * of added events, and each rewind's removals of events the client holds (added
     * after `base`, at or before `cursor`). At most `max` changes are looked at;
     * `through` is the cursor after them (past any that matched nothing).
     */
    changesAfter(start: { cursor: number; base: number }, filter: StreamFilter, max: number, filterKey?: string): { items: FeedItem[]; through: number } {
      const { cursor, base } = start
      const generation = syncer.status().generation
      if (shared.generation !== generation || shared.byKey.size > 1_000) shared = { generation, byKey: new Map() }
      const key = filterKey === undefined ? undefined : `${filterKey}|${cursor}|${max}`
      const known = key === undefined ? undefined : shared.byKey.get(key)
      if (known) return known
      const events = log.events
      const seqs = log.seqs
      const removals = history.removals
      let add = log.indexAfter(cursor)
      let removal = 0
      while (removal < removals.length && removals[removal]!.seq <= cursor) removal++
      const items: FeedItem[] = []
      let run: FeedItem | undefined
      let through = cursor
      let looked = 0
      while (looked < max) {
        const addSeq = add < seqs.length ? seqs[add]! : Number.POSITIVE_INFINITY
        const removalSeq = removal < removals.length ? removals[removal]!.seq : Number.POSITIVE_INFINITY
        if (addSeq === Number.POSITIVE_INFINITY && removalSeq === Number.POSITIVE_INFINITY) {
          through = Math.max(through, history.lastSeq)
          break
        }
        if (addSeq < removalSeq) {
          const event = events[add]!
          if (matches(filter, event)) {
            if (!run) {
              run = { kind: 'events', events: [], through: addSeq }
              items.push(run)
            }
            run.events.push(event)
          }
          looked++
          add++
          through = addSeq
        } else {
          const gone: ActivityEvent[] = []
          for (; removal < removals.length && removals[removal]!.seq === removalSeq; removal++, looked++) {
            const each = removals[removal]!
            if (each.addedSeq > base && each.addedSeq <= cursor && matches(filter, each.event)) gone.push(each.event)
          }
          if (gone.length > 0) {
            run = undefined
            items.push({ kind: 'removed', events: gone, through: removalSeq })
          }
          through = removalSeq
        }
        const last = items.at(-1)
        if (last) last.through = through
      }
      const last = items.at(-1)
      if (last) last.through = through
      const answer = { items, through }
      // No removal after the cursor: the answer is the same whatever the stream's base.
      if (key !== undefined && !(removals.length > 0 && removals[removals.length - 1]!.seq > cursor)) shared.byKey.set(key, answer)
      return answer
    },
  }
}

export type ActivityFeed = ReturnType<typeof createActivityFeed>
