// A slow consumer of GET /activity/stream is never buffered without bound: a client
// that stops reading (its socket paused, as a stuck or overloaded reader does) is sent a
// last `cutoff` message naming the cursor to resume from once a message has waited
// INDEXER_STREAM_STALL_MS for it, and the stream ends. Reading on from that cursor
// gives every event exactly once. The replay is ~7 MB so that the socket buffers
// (a few MB on loopback) fill up.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connect } from 'node:net'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import type { ActivityEvent } from '../../src/wire/index.ts'
import { depositMany } from './registryFlow.ts'
import { applyMessages, openSse, type SseMessage } from './sseReader.ts'
import { startTestIndexer, type TestIndexer } from './startTestIndexer.ts'
import { waitFor } from '../helpers/waitFor.ts'

const eventCount = 24_000
let devnet: Devnet
let indexer: TestIndexer

beforeAll(async () => {
  devnet = await startDevnet()
  await depositMany(devnet, eventCount)
  indexer = await startTestIndexer(devnet, { overrides: { retention: 50_000, stream: { heartbeatMs: 60_000, stallMs: 500, maxClients: 10 } } })
  await indexer.sync.syncOnce()
}, 180_000)

afterAll(async () => {
  await indexer?.stop()
  await devnet?.stop()
})

/** The SSE messages of a raw HTTP/1.1 answer with a chunked body (what the paused client finally reads). */
function messagesOf(raw: Buffer): SseMessage[] {
  const text = raw.toString('utf8')
  const bodyStart = text.indexOf('\r\n\r\n') + 4
  let at = bodyStart
  let body = ''
  for (;;) {
    const lineEnd = text.indexOf('\r\n', at)
    const size = Number.parseInt(text.slice(at, lineEnd), 16)
    if (!(size > 0)) break
    // Chunk sizes count bytes; the text is UTF-8 of ASCII JSON here, so bytes and characters agree.
    body += text.slice(lineEnd + 2, lineEnd + 2 + size)
    at = lineEnd + 2 + size + 2
  }
  const messages: SseMessage[] = []
  for (const block of body.split('\n\n')) {
    const lines = block.split('\n').filter((line) => line !== '' && !line.startsWith(':'))
    const field = (name: string) => lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2)
    const data = field('data')
    if (data !== undefined) messages.push({ event: field('event') ?? 'message', id: field('id'), data: JSON.parse(data) })
  }
  return messages
}

test(
  'a client that stops reading is cut off with a last cutoff message naming where to resume; resuming there gives the rest, nothing missed or twice',
  async () => {
    const all = [...indexer.sync.snapshot().events]
    expect(all.length).toBeGreaterThanOrEqual(eventCount)
    const { hostname, port } = new URL(indexer.url)
    const received: Buffer[] = []
    const socket = connect(Number(port), hostname)
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    socket.on('data', (chunk: Buffer) => received.push(chunk))
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
    socket.write(`GET /activity/stream?fromBlock=0 HTTP/1.1\r\nHost: ${hostname}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n`)
    // The client stops reading: the indexer's writes wait once the socket buffers are full.
    socket.pause()
    await waitFor('the indexer to cut the stream off', () => indexer.indexer.streams().cutoffs === 1, 60_000)
    expect(indexer.indexer.streams().open).toBe(0)
    // The client reads again: everything written before the cutoff, the cutoff, the end.
    socket.resume()
    await closed
    const messages = messagesOf(Buffer.concat(received))
    const last = messages.at(-1)!
    expect(last.event).toBe('cutoff')
    const cutoff = last.data as { cursor: string; message: string }
    expect(cutoff.message).toBe(`this stream was not read for 500 ms (INDEXER_STREAM_STALL_MS): reconnect with Last-Event-ID ${cutoff.cursor} (or ?cursor=) to resume`)
    // Its id and its cursor are the id of the message before it: the last one the client has.
    expect([last.id, cutoff.cursor]).toEqual([messages.at(-2)!.id, messages.at(-2)!.id])
    const before = applyMessages(messages)
    expect(before.length).toBeGreaterThan(0)
    expect(before.length).toBeLessThan(all.length)
    expect(before).toEqual(all.slice(0, before.length))

    const resumed = await openSse(`${indexer.url}/activity/stream?fromBlock=0`, { 'last-event-id': cutoff.cursor })
    try {
      await resumed.until('the rest of the events', () => before.length + applyMessages(resumed.messages).length >= all.length, 60_000)
      const rest = resumed.of('events').flatMap((message) => (message.data as { events: ActivityEvent[] }).events)
      expect(rest.length).toBe(all.length - before.length)
      expect([...before, ...rest]).toEqual(all)
    } finally {
      await resumed.close()
    }
  },
  120_000,
)
