import type { ActivityEvent } from '../../wire/index.ts'
import { compareEvents } from './decode.ts'

/**
 * The indexed events in chain order, capped at `retention`: appending past the cap
 * drops the oldest events from the front and marks the log truncated (for good:
 * what was dropped is gone). A reorg rewinds the tail with `dropAbove`. Each event
 * keeps the number of the change that added it (the store's, see store/types.ts);
 * chain order is number order, so `indexAfter` finds a stream cursor by bisection.
 *
 * @example
 * const log = createEventLog(10_000)
 * log.append(events)
 * log.dropAbove(forkBlock)
 */
export function createEventLog(retention: number) {
  let held: ActivityEvent[] = []
  /** The change number of each held event, in the same order (ascending). */
  let seqs: number[] = []
  // Restored events not read yet: read (parsed, for a store's) when first needed.
  let restored: (() => ActivityEvent[]) | undefined
  let count = 0
  const events = (): ActivityEvent[] => {
    if (restored) {
      held = restored()
      restored = undefined
    }
    return held
  }
  let truncated = false
  /** Changes whenever `events` does (the snapshot re-serializes the events only then). */
  let version = 0
  /** `JSON.stringify(events)` when known without serializing (restored from the store), for `version` only. */
  let known: { version: number; json: string } | undefined

  return {
    get events(): readonly ActivityEvent[] {
      return events()
    },
    /** How many events are held (known without reading restored ones). */
    get count(): number {
      return restored ? count : held.length
    },
    get truncated() {
      return truncated
    },
    /** The change number of each held event, in the order of `events`. */
    get seqs(): readonly number[] {
      return seqs
    },
    /** Index of the first held event whose change number is above `seq` (`count` when none is). */
    indexAfter(seq: number): number {
      let low = 0
      let high = seqs.length
      while (low < high) {
        const middle = (low + high) >> 1
        if (seqs[middle]! <= seq) low = middle + 1
        else high = middle
      }
      return low
    },
    get version() {
      return version
    },
    /** `JSON.stringify(events)` if it is known without serializing them, else undefined. */
    get json(): string | undefined {
      return known?.version === version ? known.json : undefined
    },
    /**
     * Adds events that all come after the ones held (sorted here into chain order);
     * `skipped`: how many events came before `added` but were left out (too old to keep);
     * `added` numbers them in chain order (default: the numbers after the last held one).
     */
    append(added: readonly ActivityEvent[], skipped = 0, addedSeqs?: readonly number[]) {
      if (skipped > 0) truncated = true
      if (added.length === 0) return
      version++
      // One push per event: `push(...added)` passes every event as an argument and throws
      // RangeError past ~1M of them (INDEXER_RETENTION accepts 10M).
      let ordered = added
      let numbers = addedSeqs
      if (!inChainOrder(added)) {
        // Each number stays with its event.
        const pairs = added.map((event, i) => ({ event, seq: addedSeqs?.[i] })).sort((a, b) => compareEvents(a.event, b.event))
        ordered = pairs.map((pair) => pair.event)
        numbers = addedSeqs && pairs.map((pair) => pair.seq as number)
      }
      const all = events()
      const next = seqs.length > 0 ? seqs[seqs.length - 1]! + 1 : 1
      for (let i = 0; i < ordered.length; i++) {
        all.push(ordered[i]!)
        seqs.push(numbers?.[i] ?? next + i)
      }
      if (all.length > retention) {
        held = all.slice(all.length - retention)
        seqs = seqs.slice(seqs.length - retention)
        truncated = true
      }
    },
    /**
     * Replaces the whole log (a restart loading the store). `stored` is called when the
     * events are first needed (a store's are parsed then); `storedCount` is how many it
     * holds; `json`: `JSON.stringify` of them when at hand.
     */
    restore(stored: () => ActivityEvent[], storedCount: number, wasTruncated: boolean, json?: string, storedSeqs?: readonly number[]) {
      restored = stored
      seqs = storedSeqs ? [...storedSeqs] : Array.from({ length: storedCount }, (_, i) => i + 1)
      count = storedCount
      truncated = wasTruncated
      version++
      known = json === undefined ? undefined : { version, json }
    },
    /** Drops every event above `block` (orphaned by a reorg); returns how many. */
    dropAbove(block: bigint): number {
      const all = events()
      // Chain order: what stays is a prefix.
      let kept = all.length
      while (kept > 0 && BigInt(all[kept - 1]!.blockNumber) > block) kept--
      const dropped = all.length - kept
      if (dropped > 0) {
        held = all.slice(0, kept)
        seqs = seqs.slice(0, kept)
        version++
      }
      return dropped
    },
  }
}

export type EventLog = ReturnType<typeof createEventLog>

function inChainOrder(events: readonly ActivityEvent[]): boolean {
  for (let i = 1; i < events.length; i++) if (compareEvents(events[i - 1]!, events[i]!) > 0) return false
  return true
}
