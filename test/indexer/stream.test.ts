// GET /activity/stream on one indexer (embedded store) following a real anvil: what a
// stream sends first, events as they are indexed, the filters, replays, resuming after a
// drop (Last-Event-ID or ?cursor=) with no gap and no duplicate, reorg retractions
// (evm_revert and anvil_reorg), stale announcements, heartbeats and its limits.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import type { ActivityEvent, ActivitySnapshot, ActivityStreamStatus } from '../../src/wire/index.ts'
import { proposeLien, runRegistryFlow } from './registryFlow.ts'
import { startRpcProxy } from './rpcProxy.ts'
import { applyMessages, openSse, type SseStream } from './sseReader.ts'
import { startTestIndexer, type TestIndexer } from './startTestIndexer.ts'
import { waitFor } from '../helpers/waitFor.ts'

let devnet: Devnet
let indexer: TestIndexer
const streams: SseStream[] = []

beforeAll(async () => {
  devnet = await startDevnet()
  await runRegistryFlow(devnet, 'stream seed')
  indexer = await startTestIndexer(devnet, { loop: true, overrides: { stream: { heartbeatMs: 300, stallMs: 10_000, maxClients: 50 } } })
  await waitFor('the indexer to reach the head', async () => (await indexer.get('/ready')).status === 200)
}, 60_000)

afterAll(async () => {
  for (const stream of streams) await stream.close()
  await indexer?.stop()
  await devnet?.stop()
})

async function open(path: string, headers: Record<string, string> = {}, on: TestIndexer = indexer) {
  const stream = await openSse(`${on.url}${path}`, headers)
  streams.push(stream)
  return stream
}

const served = async (path = '/activity') => ((await indexer.get(path)).json as ActivitySnapshot).events
const hasTx = (events: readonly ActivityEvent[], tx: string) => events.some((event) => event.transactionHash === tx)
const head = () => devnet.publicClient.getBlockNumber({ cacheTime: 0 })

describe('GET /activity/stream', () => {
  test('answers text/event-stream, readable from any origin; starts with a status carrying the cursor and the retry delay', async () => {
    const stream = await open('/activity/stream', { origin: 'https://dapp.example' })
    expect(stream.response.status).toBe(200)
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream')
    expect(stream.response.headers.get('access-control-allow-origin')).toBe('*')
    expect(stream.response.headers.get('cache-control')).toBe('no-cache')
    await stream.until('the first status', () => stream.messages.length > 0)
    const [first] = stream.messages
    const snapshot = indexer.sync.snapshot()
    expect(first).toMatchObject({ event: 'status', retry: 2000, data: { indexedThrough: snapshot.indexedThrough, stale: false } })
    expect(first!.id).toMatch(/^\d+\.[0-9a-f]{8}$/)
    // A preflighted read (EventSource never preflights; a fetch with Last-Event-ID does).
    const preflight = await fetch(`${indexer.url}/activity/stream`, {
      method: 'OPTIONS',
      headers: { origin: 'https://dapp.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'last-event-id' },
    })
    expect([preflight.status, preflight.headers.get('access-control-allow-origin'), preflight.headers.get('access-control-allow-headers')]).toEqual([204, '*', 'last-event-id'])
    await stream.close()
  })

  test('without a cursor or fromBlock: only what is indexed from now on, each event once, in chain order; heartbeats while quiet', async () => {
    const stream = await open('/activity/stream')
    await stream.until('the first status', () => stream.of('status').length > 0)
    const proposal = await proposeLien(devnet, 'live one')
    await stream.until('the proposal', () => hasTx(applyMessages(stream.messages), proposal.receipt.transactionHash))
    const got = applyMessages(stream.messages)
    expect(got).toEqual((await served()).filter((event) => BigInt(event.blockNumber) === proposal.receipt.blockNumber))
    // Quiet: comment lines, invisible to EventSource, keep proxies from closing it (INDEXER_STREAM_HEARTBEAT_MS = 300 here).
    await stream.until('two heartbeats', () => stream.comments >= 2, 5_000)
    await stream.close()
  })

  test('fromBlock replays the retained events at or after it, then follows; name and address filter both', async () => {
    const all = await served()
    const from = all[3]!.blockNumber
    const replay = await open(`/activity/stream?fromBlock=${from}`)
    const expected = all.filter((event) => BigInt(event.blockNumber) >= BigInt(from))
    await replay.until('the replay', () => applyMessages(replay.messages).length >= expected.length)
    expect(applyMessages(replay.messages)).toEqual(expected)
    const { inbox } = devnet.manifest.contracts
    const filtered = await open(`/activity/stream?fromBlock=0&name=LienProposed,LienRecorded&address=${inbox.toUpperCase().replace('0X', '0x')}`)
    const proposal = await proposeLien(devnet, 'filtered')
    await filtered.until('the filtered replay and the new proposal', () => hasTx(applyMessages(filtered.messages), proposal.receipt.transactionHash))
    const wanted = (await served(`/activity?name=LienProposed,LienRecorded&address=${inbox}`)).filter((event) => BigInt(event.blockNumber) <= proposal.receipt.blockNumber)
    expect(applyMessages(filtered.messages)).toEqual(wanted)
    expect(wanted.every((event) => event.name === 'LienProposed')).toBe(true)
    await replay.until('the new proposal on the unfiltered replay', () => hasTx(applyMessages(replay.messages), proposal.receipt.transactionHash))
  })

  test('resumes after a drop: Last-Event-ID (or ?cursor=) gives exactly what was missed, nothing twice; an /activity nextCursor continues after its page', async () => {
    const first = await open('/activity/stream?fromBlock=0')
    await first.until('the replay', async () => applyMessages(first.messages).length === (await served()).length)
    const resumeAt = first.lastEventId!
    const held = applyMessages(first.messages)
    await first.close()
    const missed = [await proposeLien(devnet, 'missed one'), await proposeLien(devnet, 'missed two')]
    await waitFor('the indexer to index both', async () => hasTx(await served(), missed[1]!.receipt.transactionHash))
    const now = await served()

    const resumed = await open('/activity/stream?fromBlock=0', { 'last-event-id': resumeAt })
    await resumed.until('the missed events', () => hasTx(applyMessages(resumed.messages), missed[1]!.receipt.transactionHash))
    expect(resumed.of('events').flatMap((message) => (message.data as { events: ActivityEvent[] }).events)).toEqual(now.slice(held.length))
    expect(applyMessages(resumed.messages, held)).toEqual(now)
    // The same with ?cursor= (a client that cannot set the header).
    const byQuery = await open(`/activity/stream?cursor=${resumeAt}`)
    await byQuery.until('the missed events', () => hasTx(applyMessages(byQuery.messages), missed[1]!.receipt.transactionHash))
    expect(applyMessages(byQuery.messages, held)).toEqual(now)
    // A page of /activity, then the stream from its nextCursor.
    const page = (await indexer.get('/activity?limit=3')).json as ActivitySnapshot & { nextCursor: string }
    const after = await open(`/activity/stream?cursor=${page.nextCursor}`)
    await after.until('the rest after the page', () => applyMessages(after.messages).length === now.length - 3)
    expect([...page.events, ...applyMessages(after.messages)]).toEqual(now)
  })

  test('a reorg (evm_snapshot, evm_revert, other blocks) retracts the orphaned event by a removed message naming it, then sends the replacement; a client resuming from before the reorg is told too', async () => {
    const live = await open('/activity/stream?fromBlock=0')
    await live.until('the replay', async () => applyMessages(live.messages).length === (await served()).length)
    const snapshot = await devnet.testClient.snapshot()
    const orphan = await proposeLien(devnet, 'orphaned on a stream')
    await devnet.testClient.mine({ blocks: 1 })
    const height = await head()
    await live.until('the orphan', () => hasTx(applyMessages(live.messages), orphan.receipt.transactionHash))
    // A second client drops while holding the orphan.
    const dropped = await open('/activity/stream?fromBlock=0')
    await dropped.until('the orphan', () => hasTx(applyMessages(dropped.messages), orphan.receipt.transactionHash))
    const droppedAt = dropped.lastEventId!
    const droppedHeld = applyMessages(dropped.messages)
    await dropped.close()

    await devnet.testClient.revert({ id: snapshot })
    const replacement = await proposeLien(devnet, 'replacement on a stream')
    await devnet.testClient.mine({ blocks: 1 })
    expect(await head()).toBe(height)
    await live.until('the replacement', () => hasTx(applyMessages(live.messages), replacement.receipt.transactionHash))
    const removed = live.of('removed')
    expect(removed).toHaveLength(1)
    expect((removed[0]!.data as { events: ActivityEvent[] }).events.map((event) => event.transactionHash)).toEqual([orphan.receipt.transactionHash])
    // The retraction comes before the replacement, and what the client holds is the chain's.
    const order = live.messages.map((message) => message.event).filter((event) => event !== 'status')
    expect(order.lastIndexOf('removed')).toBeLessThan(order.lastIndexOf('events'))
    const fresh = await freshEvents()
    expect(applyMessages(live.messages)).toEqual(fresh)

    const resumed = await open('/activity/stream?fromBlock=0', { 'last-event-id': droppedAt })
    await resumed.until('the replacement', () => hasTx(applyMessages(resumed.messages, droppedHeld), replacement.receipt.transactionHash))
    expect(resumed.of('removed').flatMap((message) => (message.data as { events: ActivityEvent[] }).events.map((event) => event.transactionHash))).toEqual([
      orphan.receipt.transactionHash,
    ])
    expect(applyMessages(resumed.messages, droppedHeld)).toEqual(fresh)
  })

  test('anvil_reorg of the newest blocks: the events in them are retracted', async () => {
    const live = await open('/activity/stream')
    await live.until('the first status', () => live.of('status').length > 0)
    const orphan = await proposeLien(devnet, 'orphan before anvil_reorg on a stream')
    await devnet.testClient.mine({ blocks: 2 })
    await live.until('the orphan', () => hasTx(applyMessages(live.messages), orphan.receipt.transactionHash))
    await devnet.testClient.request({ method: 'anvil_reorg' as never, params: [3, []] as never })
    await live.until('the retraction', () => live.of('removed').length > 0)
    expect((live.of('removed')[0]!.data as { events: ActivityEvent[] }).events.map((event) => event.transactionHash)).toEqual([orphan.receipt.transactionHash])
    expect(applyMessages(live.messages)).toEqual([])
    await waitFor('the indexer to repair', async () => (await indexer.get('/ready')).status === 200)
    expect(await served()).toEqual(await freshEvents())
  })

  test('a cursor of another history (another index, or a :memory: store before a restart) starts over with a reset, then the retained events', async () => {
    const stream = await open('/activity/stream?fromBlock=0', { 'last-event-id': '5.00000000' })
    await stream.until('the replay', async () => applyMessages(stream.messages).length === (await served()).length)
    expect(stream.messages[0]).toMatchObject({ event: 'reset', data: { message: expect.stringContaining('cursor 5.00000000 belongs to another change history') } })
    expect(applyMessages(stream.messages)).toEqual(await served())
  })

  test('bad query parameters and a malformed Last-Event-ID answer 400 BAD_QUERY naming them', async () => {
    expect((await indexer.get('/activity/stream?limit=3')).json).toMatchObject({ code: 'BAD_QUERY', parameter: 'limit' })
    expect((await indexer.get('/activity/stream?fromBlock=x')).json).toMatchObject({ code: 'BAD_QUERY', parameter: 'fromBlock' })
    const header = await indexer.get('/activity/stream', { headers: { 'last-event-id': 'not a cursor!' } })
    expect([header.status, header.json]).toEqual([400, { ok: false, code: 'BAD_QUERY', parameter: 'Last-Event-ID', message: 'Last-Event-ID: must be the id of a message of an earlier stream' }])
  })
})

describe('GET /activity/stream: freshness and limits', () => {
  test('stale and lag changes are announced: the node unreachable (head unreadable) makes it stale, back makes it fresh again', async () => {
    const proxy = await startRpcProxy(devnet.rpcUrl)
    const own = await startTestIndexer(devnet, { rpcUrl: proxy.url, loop: true, overrides: { headStaleMs: 400, stream: { heartbeatMs: 5_000, stallMs: 10_000, maxClients: 5 } } })
    try {
      await waitFor('the indexer to reach the head', async () => (await own.get('/ready')).status === 200)
      const stream = await open('/activity/stream', {}, own)
      await stream.until('a fresh status', () => stream.of('status').some((message) => (message.data as ActivityStreamStatus).stale === false))
      await proxy.down()
      await stream.until('a stale status', () => stream.of('status').some((message) => (message.data as ActivityStreamStatus).stale), 10_000)
      await proxy.up()
      const staleAt = stream.messages.length
      await devnet.testClient.mine({ blocks: 3 })
      await stream.until('fresh again', () => stream.messages.slice(staleAt).some((message) => message.event === 'status' && !(message.data as ActivityStreamStatus).stale), 10_000)
      const last = stream.of('status').at(-1)!.data as ActivityStreamStatus
      expect(BigInt(last.head) - BigInt(last.indexedThrough)).toBe(BigInt(last.lagBlocks))
    } finally {
      await own.stop()
      await proxy.stop()
    }
  })

  test('a stream quiet for longer than Bun.serve’s idle timeout (10 s) stays open until its heartbeat', async () => {
    const own = await startTestIndexer(devnet, { overrides: { stream: { heartbeatMs: 12_000, stallMs: 10_000, maxClients: 5 } } })
    try {
      const quiet = await open('/activity/stream', {}, own)
      await quiet.until('the heartbeat after 12 s of quiet', () => quiet.comments > 0, 20_000)
      expect(quiet.ended).toBe(false)
    } finally {
      await own.stop()
    }
  }, 30_000)

  test('INDEXER_STREAM_MAX_CLIENTS: one stream more answers 503 UNAVAILABLE with Retry-After; a closed stream frees its place', async () => {
    const own = await startTestIndexer(devnet, { overrides: { stream: { heartbeatMs: 5_000, stallMs: 10_000, maxClients: 2 } } })
    try {
      const [a, b] = [await open('/activity/stream', {}, own), await open('/activity/stream', {}, own)]
      await a.until('a started', () => a.messages.length > 0)
      await b.until('b started', () => b.messages.length > 0)
      const refused = await own.get('/activity/stream')
      expect([refused.status, refused.headers.get('retry-after'), (refused.json as { code: string }).code]).toEqual([503, '5', 'UNAVAILABLE'])
      await a.close()
      await waitFor('the closed stream to free its place', () => own.indexer.streams().open === 1)
      const again = await open('/activity/stream', {}, own)
      await again.until('a third stream to start', () => again.messages.length > 0)
    } finally {
      await own.stop()
    }
  })
})

/** What a fresh indexer (embedded store, synced once) serves now: the chain's events. */
async function freshEvents(): Promise<ActivityEvent[]> {
  const fresh = await startTestIndexer(devnet)
  try {
    await fresh.sync.syncOnce()
    return [...fresh.sync.snapshot().events]
  } finally {
    await fresh.stop()
  }
}
