import { OrderRelayError } from '../errors/index.ts'

/** Why a watch reports a problem (`onError`); it keeps watching unless `fatal`. */
export type WatchErrorCode =
  /** The connection failed or dropped: reconnecting with the last id (Last-Event-ID). */
  | 'NETWORK'
  /** The server answered something that is not the expected event stream. */
  | 'BAD_RESPONSE'
  /** The server refused the request (HTTP 4xx, e.g. BAD_QUERY): not retried. */
  | 'REFUSED'
  /** The server is busy or unavailable (HTTP 5xx or 429): retried. */
  | 'UNAVAILABLE'

/** A problem of a watch (`watchActivity`, `watchOrder`). */
export class WatchError extends OrderRelayError<WatchErrorCode> {
  override name = 'WatchError'
  /** The HTTP status, when the server answered (0 otherwise). */
  readonly status: number
  /** True when the watch stopped because of it (a refused request). */
  readonly fatal: boolean
  constructor(code: WatchErrorCode, message: string, options: { status?: number; fatal?: boolean; cause?: unknown } = {}) {
    super(code, message, { cause: options.cause })
    this.status = options.status ?? 0
    this.fatal = options.fatal ?? false
  }
}

/** One Server-Sent Events message: its `event` (default `message`), the last `id` seen, and `data`. */
export type EventStreamMessage = { event: string; id: string | undefined; data: string }

export type WatchEventStreamParameters = {
  /** The stream's URL (query included). */
  url: string
  /** Extra request headers. */
  headers?: Record<string, string>
  /** Resume after this id (sent as Last-Event-ID on the first request too). */
  lastEventId?: string
  onMessage: (message: EventStreamMessage) => void
  onError?: (error: WatchError) => void
  /** True when the stream ended as it should and must not be opened again (an order that is final). */
  isDone?: () => boolean
  /** Wait before reconnecting, unless the server set `retry` (default 2000 ms); doubled per failure in a row, up to 8 times. */
  retryMs?: number
  fetch?: typeof fetch
}

/**
 * Follows a `text/event-stream` over `fetch` (browsers and Node 20 alike; EventSource
 * is not in Node 20 and cannot resume from an id given up front): parses it as the
 * WHATWG HTML standard says, and after a drop reconnects with the last `id` as
 * `Last-Event-ID`, waiting the server's `retry` delay (doubled per failure in a row).
 * Returns a function that stops it.
 *
 * @example
 * const unwatch = watchEventStream({ url, onMessage: (message) => console.log(message.event, message.data) })
 */
export function watchEventStream(parameters: WatchEventStreamParameters): () => void {
  const fetchImpl = parameters.fetch ?? globalThis.fetch
  const controller = new AbortController()
  let lastEventId = parameters.lastEventId
  let retryMs = parameters.retryMs ?? 2_000
  let failures = 0
  const report = (error: WatchError) => {
    if (!controller.signal.aborted) parameters.onError?.(error)
  }

  /** One connection, read to its end. True when the stream ended cleanly (the server closed it). */
  async function connect(): Promise<boolean> {
    const headers: Record<string, string> = { accept: 'text/event-stream', ...parameters.headers }
    if (lastEventId) headers['last-event-id'] = lastEventId
    let response: Response
    try {
      response = await fetchImpl(parameters.url, { headers, signal: controller.signal, cache: 'no-store' })
    } catch (error) {
      report(new WatchError('NETWORK', `could not reach ${parameters.url}; retrying`, { cause: error }))
      return false
    }
    if (!response.ok) {
      const body = await response.text().catch(() => '')
      const detail = describeBody(body)
      if (response.status >= 400 && response.status < 500 && response.status !== 429) {
        report(new WatchError('REFUSED', `${parameters.url} answered ${response.status}${detail}: not retried`, { status: response.status, fatal: true }))
        controller.abort()
        return false
      }
      report(new WatchError('UNAVAILABLE', `${parameters.url} answered ${response.status}${detail}; retrying`, { status: response.status }))
      return false
    }
    if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) {
      report(new WatchError('BAD_RESPONSE', `${parameters.url} did not answer an event stream (${response.headers.get('content-type') ?? 'no content type'}); retrying`, { status: response.status }))
      await response.body?.cancel().catch(() => {})
      return false
    }
    failures = 0
    const reader = response.body.getReader()
    const decoder = new TextDecoder()
    let buffer = ''
    let event = ''
    let data: string[] = []
    let id: string | undefined = lastEventId
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return true
        buffer += decoder.decode(value, { stream: true })
        for (let newline = buffer.search(/\r\n|[\r\n]/); newline >= 0; newline = buffer.search(/\r\n|[\r\n]/)) {
          const line = buffer.slice(0, newline)
          buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1))
          if (line === '') {
            // Dispatch: the id is kept even by a message without data.
            lastEventId = id
            if (data.length > 0) parameters.onMessage({ event: event || 'message', id, data: data.join('\n') })
            event = ''
            data = []
            continue
          }
          if (line.startsWith(':')) continue
          const colon = line.indexOf(':')
          const field = colon < 0 ? line : line.slice(0, colon)
          const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
          if (field === 'event') event = text
          else if (field === 'data') data.push(text)
          else if (field === 'id' && !text.includes('\u0000')) id = text
          else if (field === 'retry' && /^\d+$/.test(text)) retryMs = Number(text)
        }
      }
    } catch (error) {
      report(new WatchError('NETWORK', `the stream from ${parameters.url} dropped; resuming${lastEventId ? ` after ${lastEventId}` : ''}`, { cause: error }))
      return false
    } finally {
      reader.releaseLock()
    }
  }

  void (async () => {
    while (!controller.signal.aborted) {
      const clean = await connect()
      if (controller.signal.aborted || parameters.isDone?.()) break
      if (!clean) failures++
      const wait = retryMs * 2 ** Math.min(failures, 3)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, wait)
        function done() {
          clearTimeout(timer)
          controller.signal.removeEventListener('abort', done)
          resolve()
        }
        controller.signal.addEventListener('abort', done, { once: true })
      })
    }
  })()

  return () => controller.abort()
}

/** ` (CODE: message)` from a JSON failure body, never more than 200 characters of it. */
function describeBody(body: string): string {
  try {
    const parsed = JSON.parse(body) as { code?: unknown; message?: unknown }
    if (typeof parsed.code === 'string') return ` (${parsed.code}${typeof parsed.message === 'string' ? `: ${parsed.message.slice(0, 200)}` : ''})`
  } catch {
    // Not JSON.
  }
  return ''
}
