import type { Context } from 'hono'
import { type SSEStreamingApi, streamSSE } from 'hono/streaming'
import type { Logger } from '../../shared/index.ts'
import type { StreamLimits } from '../config.ts'
import { encodeStreamCursor } from './cursor.ts'
import type { ActivityFeed, FeedItem, StreamFilter, StreamStart } from './feed.ts'
import { parseStreamQuery } from './parseStreamQuery.ts'

/** Most changes one message covers (and so most events in it). */
export const eventsPerMessage = 500
/** How long EventSource waits before reconnecting (the `retry` field of the first message). */
export const retryMs = 2_000
/** Lag-only status changes are sent at most this often; `stale` or role changes at once. */
const statusGapMs = 1_000

/** One Server-Sent Events message: `data` is one line of JSON. */
function message(event: string, data: unknown, id?: string, retry?: number): string {
  return `${retry === undefined ? '' : `retry: ${retry}\n`}event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`
}

/**
 * `GET /activity/stream` (docs/indexer.md "Live activity"): Server-Sent Events of what
 * the indexer serves, as it changes. Each stream writes one message at a time and
 * reads the next from the feed only once the client took the last one (backpressure
 * from the socket), so nothing piles up for a slow client; a message the client has not
 * taken within INDEXER_STREAM_STALL_MS ends the stream with a `cutoff` message naming
 * the cursor to resume from. A comment line every INDEXER_STREAM_HEARTBEAT_MS keeps a
 * quiet stream open through proxies; at most INDEXER_STREAM_MAX_CLIENTS are open at once.
 *
 * @example
 * app.get('/activity/stream', createActivityStreamRoute(feed, { limits: config.stream, logger }))
 */
export function createActivityStreamRoute(feed: ActivityFeed, options: { limits: StreamLimits; logger: Logger; now?: () => number }) {
  const { limits } = options
  const clock = options.now ?? (() => performance.now())
  let open = 0
  let cutoffs = 0
  const encoder = new TextEncoder()
  /** Each shared message's bytes, encoded once for every stream that sends it. */
  const encoded = new WeakMap<FeedItem, Uint8Array>()

  async function pump(stream: SSEStreamingApi, filter: StreamFilter, start: StreamStart) {
    let { cursor, base } = start
    const filterKey = JSON.stringify([[...(filter.names ?? [])].sort(), [...(filter.addresses ?? [])].sort(), filter.fromBlock ?? null])
    let historyId = feed.historyId()
    let lastWrite = clock()
    let sentStatus: { json: string; stale: boolean; role: string | undefined; at: number } | undefined
    const ended = new AbortController()
    stream.onAbort(() => ended.abort())
    const id = () => encodeStreamCursor({ seq: cursor, historyId })

    /** Writes `text`; false once the stream is over (the client left, or it was cut off for not reading). */
    async function send(text: string | Uint8Array): Promise<boolean> {
      if (stream.aborted || stream.closed) return false
      let timer: ReturnType<typeof setTimeout> | undefined
      const stalled = await Promise.race([
        stream.write(text).then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), limits.stallMs))),
      ])
      clearTimeout(timer)
      if (stalled) {
        // Queued behind the message the client has not taken: it reads both, then the end.
        cutoffs++
        const resume = id()
        void stream.write(
          message('cutoff', { cursor: resume, message: `this stream was not read for ${limits.stallMs} ms (INDEXER_STREAM_STALL_MS): reconnect with Last-Event-ID ${resume} (or ?cursor=) to resume` }, resume),
        )
        void stream.close()
        return false
      }
      lastWrite = clock()
      return !stream.aborted
    }

    async function sendStatus(first: boolean): Promise<boolean> {
      const { status, json } = feed.status()
      const at = clock()
      if (!first && sentStatus) {
        if (json === sentStatus.json) return true
        const urgent = status.stale !== sentStatus.stale || status.role !== sentStatus.role
        if (!urgent && at - sentStatus.at < statusGapMs) return true
      }
      sentStatus = { json, stale: status.stale, role: status.role, at }
      return send(message('status', status, id(), first ? retryMs : undefined))
    }

    async function reset(why: string, restart: StreamStart): Promise<boolean> {
      ;({ cursor, base } = restart)
      historyId = feed.historyId()
      return send(message('reset', { message: why }))
    }

    if (start.reset && !(await reset(start.reset, start))) return
    if (!(await sendStatus(true))) return
    while (!stream.aborted && !stream.closed) {
      if (feed.historyId() !== historyId || !feed.continuous(cursor, base)) {
        const why = feed.historyId() !== historyId ? 'the index was replaced (another change history)' : 'this stream fell behind what the index keeps (INDEXER_RETENTION)'
        if (!(await reset(`${why}: the retained events follow`, replay(filter)))) return
        continue
      }
      const { items, through } = feed.changesAfter({ cursor, base }, filter, eventsPerMessage, filterKey)
      for (const item of items) {
        cursor = item.through
        let bytes = encoded.get(item)
        if (!bytes) encoded.set(item, (bytes = encoder.encode(message(item.kind, { events: item.events }, id()))))
        if (!(await send(bytes))) return
      }
      cursor = Math.max(cursor, through)
      // More to read at once (a full batch), else the status, then a rest until what is served moves.
      if (cursor < feed.lastSeq()) continue
      if (!(await sendStatus(false))) return
      const quiet = clock() - lastWrite
      if (quiet >= limits.heartbeatMs) {
        if (!(await send(': heartbeat\n\n'))) return
        continue
      }
      await feed.next(Math.min(limits.heartbeatMs - quiet, statusGapMs), ended.signal)
    }
  }

  /** A fresh replay of the retained events matching `filter` (after a reset). */
  function replay(filter: StreamFilter): StreamStart {
    const restart = feed.start({ ...filter, fromBlock: filter.fromBlock ?? '0' }, undefined)
    return { cursor: restart.cursor, base: restart.base }
  }

  return {
    /** Streams open right now, and streams cut off since start (for tests and the status page). */
    stats: () => ({ open, cutoffs }),
    async handle(c: Context) {
      const parsed = parseStreamQuery(c.req.queries(), c.req.header('last-event-id'))
      if ('problem' in parsed) return c.json(parsed.problem, 400)
      if (open >= limits.maxClients) {
        c.header('Retry-After', '5')
        return c.json({ ok: false, code: 'UNAVAILABLE', message: `${open} streams are open, the most this indexer serves (INDEXER_STREAM_MAX_CLIENTS): retry shortly or use another replica` }, 503)
      }
      const start = feed.start(parsed.filter, parsed.cursor)
      open++
      // A stream is quiet up to a heartbeat: Bun.serve's idle timeout (10 s) must not close it.
      ;(c.env as { timeout?: (request: Request, seconds: number) => void } | undefined)?.timeout?.(c.req.raw, 0)
      c.header('X-Accel-Buffering', 'no')
      return streamSSE(c, async (stream) => {
        try {
          await pump(stream, parsed.filter, start)
        } catch (error) {
          options.logger.error(`indexer: GET /activity/stream failed: ${error instanceof Error ? error.message : String(error)}`)
        } finally {
          open--
        }
      })
    },
  }
}

export type ActivityStreamRoute = ReturnType<typeof createActivityStreamRoute>
