import type { ActivityEvent } from '../../wire/index.ts'
import { compareBlocks } from '../sync/decode.ts'
import { encodeCursor, type Position } from './cursor.ts'

/** A parsed `GET /activity` query: every field optional, block numbers canonical decimal. */
export type PageQuery = {
  names?: ReadonlySet<string>
  /** Lower-case addresses. */
  addresses?: ReadonlySet<string>
  fromBlock?: string
  toBlock?: string
  limit?: number
  after?: Position
  /** The cursor as given, echoed when the page is empty. */
  cursor?: string
}

/**
 * The events matching `query`, in chain order, from the retained events (sorted):
 * a binary search finds the first one after the cursor and at or after
 * `fromBlock`, then a forward scan filters by name and address up to `limit`.
 *
 * @example
 * const { events, nextCursor } = selectPage(snapshot.events, { names: new Set(['LienRecorded']), limit: 100 })
 */
export function selectPage(events: readonly ActivityEvent[], query: PageQuery): { events: ActivityEvent[]; nextCursor: string | null } {
  const start = firstAfter(events, query)
  const limit = query.limit ?? Number.POSITIVE_INFINITY
  const page: ActivityEvent[] = []
  for (let i = start; i < events.length && page.length < limit; i++) {
    const event = events[i]!
    if (query.toBlock !== undefined && compareBlocks(event.blockNumber, query.toBlock) > 0) break
    if (query.names && !query.names.has(event.name)) continue
    if (query.addresses && !query.addresses.has(event.address.toLowerCase())) continue
    page.push(event)
  }
  const last = page.at(-1)
  const nextCursor = last ? encodeCursor({ block: last.blockNumber, logIndex: last.logIndex }) : (query.cursor ?? null)
  return { events: page, nextCursor }
}

/** Index of the first event after `query.after` and at or after `query.fromBlock`. */
function firstAfter(events: readonly ActivityEvent[], query: PageQuery): number {
  const before = (event: ActivityEvent) => {
    if (query.fromBlock !== undefined && compareBlocks(event.blockNumber, query.fromBlock) < 0) return true
    if (!query.after) return false
    const byBlock = compareBlocks(event.blockNumber, query.after.block)
    return byBlock < 0 || (byBlock === 0 && event.logIndex <= query.after.logIndex)
  }
  let low = 0
  let high = events.length
  while (low < high) {
    const middle = (low + high) >> 1
    if (before(events[middle]!)) low = middle + 1
    else high = middle
  }
  return low
}
