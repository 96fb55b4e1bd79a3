import type { ActivityEvent } from '../../src/wire/index.ts'
import { waitFor } from '../helpers/waitFor.ts'

/** One Server-Sent Events message as a client sees it (data parsed as JSON). */
export type SseMessage = { event: string; id: string | undefined; data: unknown; retry?: number }

/**
 * Reads a `text/event-stream` answer as a browser's EventSource would parse it
 * (WHATWG HTML "event stream interpretation"), keeping every message, the comment
 * lines and whether the server ended the stream. For tests: `until` waits for a
 * condition with a deadline and names it when it fails.
 */
export async function openSse(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController()
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal })
  const messages: SseMessage[] = []
  let comments = 0
  let ended = false
  let lastEventId: string | undefined
  const done = (async () => {
    if (!response.body) return
    const decoder = new TextDecoder()
    let buffer = ''
    let fields: { event?: string; data: string[]; id?: string; retry?: number } = { data: [] }
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true })
        let newline = buffer.search(/\r\n|\r|\n/)
        while (newline >= 0) {
          const line = buffer.slice(0, newline)
          buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1))
          if (line === '') {
            if (fields.id !== undefined) lastEventId = fields.id
            if (fields.data.length > 0) {
              messages.push({ event: fields.event ?? 'message', id: lastEventId, data: JSON.parse(fields.data.join('\n')), ...(fields.retry === undefined ? {} : { retry: fields.retry }) })
            }
            fields = { data: [] }
          } else if (line.startsWith(':')) {
            comments++
          } else {
            const colon = line.indexOf(':')
            const name = colon < 0 ? line : line.slice(0, colon)
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
            if (name === 'event') fields.event = value
            else if (name === 'data') fields.data.push(value)
            else if (name === 'id') fields.id = value
            else if (name === 'retry') fields.retry = Number(value)
          }
          newline = buffer.search(/\r\n|\r|\n/)
        }
      }
    } catch {
      // The connection failed (the server died), or close() aborted it.
    } finally {
      ended = !controller.signal.aborted
    }
  })()
  return {
    response,
    messages,
    get comments() {
      return comments
    },
    /** The stream ended from the server's side: closed, or its connection lost (not by this client). */
    get ended() {
      return ended
    },
    /** The id of the last message that carried one: what EventSource sends as Last-Event-ID. */
    get lastEventId() {
      return lastEventId
    },
    of: (event: string) => messages.filter((message) => message.event === event),
    /** `waitFor`, its failure naming the last messages received. */
    async until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000) {
      try {
        await waitFor(what, check, timeoutMs, 10)
      } catch (error) {
        throw new Error(`${(error as Error).message}; messages: ${JSON.stringify(messages).slice(-2000)}`)
      }
    },
    async close() {
      controller.abort()
      await done
    },
  }
}

export type SseStream = Awaited<ReturnType<typeof openSse>>

/** The events a client holds after applying `events` and `removed` messages in order (a removal names an event by position and tx). */
export function applyMessages(messages: readonly SseMessage[], held: ActivityEvent[] = []): ActivityEvent[] {
  const key = (event: ActivityEvent) => `${event.blockNumber}.${event.logIndex}.${event.transactionHash}`
  let events = [...held]
  for (const message of messages) {
    const data = message.data as { events?: ActivityEvent[] }
    if (message.event === 'events') events.push(...(data.events ?? []))
    if (message.event === 'removed') {
      const gone = new Set((data.events ?? []).map(key))
      events = events.filter((event) => !gone.has(key(event)))
    }
    if (message.event === 'reset') events = []
  }
  return events
}
