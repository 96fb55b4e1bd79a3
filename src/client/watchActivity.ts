import type { ActivityEvent, ActivityStreamStatus } from '../wire/index.ts'
import { type WatchError, watchEventStream } from './watchEventStream.ts'

/** The filters of `GET /activity/stream`, as values (lists are joined with commas). */
export type ActivityFilters = {
  /** Only events of this name (or these names). */
  name?: string | readonly string[]
  /** Only events emitted by this contract (or these). */
  address?: string | readonly string[]
  /** Only events at or after this block; the retained ones are replayed first. */
  fromBlock?: bigint | number | string
}

export type WatchActivityParameters = {
  /** The indexer's base URL, e.g. `http://127.0.0.1:8788`. */
  url: string
  filters?: ActivityFilters
  /** New events, in chain order (replayed ones first when `fromBlock` is given). */
  onEvents: (events: ActivityEvent[]) => void
  /** Events delivered earlier that a reorg took off the chain: drop them (their replacements come in `onEvents`). */
  onRemoved?: (events: ActivityEvent[]) => void
  /** The index's freshness: at the start and whenever the lag or `stale` changes. */
  onStatus?: (status: ActivityStreamStatus) => void
  /** The indexer could not resume where this watch was (another index, or changes it keeps no more of): drop what it delivered; the retained events follow. */
  onReset?: (reason: string) => void
  /** A problem: a drop (the watch resumes by itself), a busy indexer (retried), or a refused request (the watch stops: `error.fatal`). */
  onError?: (error: WatchError) => void
  /** Resume after this id (a `cursor()` of an earlier watch, or a `nextCursor` of `GET /activity`). */
  cursor?: string
  fetch?: typeof fetch
}

/** Stops the watch; `cursor()` is where it stands (pass it as `cursor` to resume later). */
export type WatchActivityReturnType = (() => void) & { cursor: () => string | undefined }

/**
 * Follows an indexer's activity as it is indexed (`GET /activity/stream`), in viem's
 * watch style: callbacks for new and removed events, and a function to stop. A drop
 * (network, a restarted or replaced indexer replica) is resumed with `Last-Event-ID`,
 * with no event missed or delivered twice. Works in browsers and Node 20.
 *
 * @example
 * import { watchActivity } from 'order-relay/client'
 * const unwatch = watchActivity({
 *   url: 'http://127.0.0.1:8788',
 *   filters: { name: ['LienRecorded', 'LienReleased'] },
 *   onEvents: (events) => console.log('new', events),
 *   onRemoved: (events) => console.log('reorged away', events),
 * })
 * // later
 * unwatch()
 */
export function watchActivity(parameters: WatchActivityParameters): WatchActivityReturnType {
  const query = new URLSearchParams()
  const { name, address, fromBlock } = parameters.filters ?? {}
  const list = (value: string | readonly string[]) => (typeof value === 'string' ? value : value.join(','))
  if (name !== undefined) query.set('name', list(name))
  if (address !== undefined) query.set('address', list(address))
  if (fromBlock !== undefined) query.set('fromBlock', fromBlock.toString())
  // The cursor goes in the query only for the first request; reconnects send Last-Event-ID.
  const base = `${parameters.url.replace(/\/+$/, '')}/activity/stream`
  let cursor = parameters.cursor
  const unwatch = watchEventStream({
    url: query.toString() === '' ? base : `${base}?${query}`,
    ...(cursor === undefined ? {} : { lastEventId: cursor }),
    ...(parameters.fetch ? { fetch: parameters.fetch } : {}),
    ...(parameters.onError ? { onError: parameters.onError } : {}),
    onMessage(message) {
      if (message.id !== undefined) cursor = message.id
      const data = JSON.parse(message.data) as { events?: ActivityEvent[]; message?: string }
      if (message.event === 'events') parameters.onEvents(data.events ?? [])
      else if (message.event === 'removed') parameters.onRemoved?.(data.events ?? [])
      else if (message.event === 'status') parameters.onStatus?.(data as ActivityStreamStatus)
      else if (message.event === 'reset') parameters.onReset?.(data.message ?? 'reset')
      // `cutoff`: the stream ends next and is resumed from its id like any drop.
    },
  })
  return Object.assign(() => unwatch(), { cursor: () => cursor })
}
