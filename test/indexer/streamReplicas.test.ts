// Indexer replicas on one PostgreSQL, with streams: readers learn the writer's commits
// by LISTEN/NOTIFY; a stream resumed on another replica across a writer failover (SIGKILL)
// and a reorg gets the same events in the same order with no gap or duplicate; a
// read-only replica (INDEXER_ROLE=reader) needs no schema rights, never takes the lock and
// never calls eth_getLogs; and every replica keeps the head, the lag and `stale` true while
// PostgreSQL is down.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import type { ActivityEvent, ActivitySnapshot, ActivityStreamStatus, IndexerReadiness } from '../../src/wire/index.ts'
import { startIndexerProcess } from './indexerProcess.ts'
import { postgresMissing, startPostgres, type TestPostgres } from '../../scripts/lib/index.ts'
import { proposeLien, runRegistryFlow } from './registryFlow.ts'
import { startRpcProxy } from './rpcProxy.ts'
import { applyMessages, openSse, type SseMessage, type SseStream } from './sseReader.ts'
import { startTestIndexer, type TestIndexer } from './startTestIndexer.ts'
import { waitFor } from '../helpers/waitFor.ts'

if (postgresMissing) console.log(`streamReplicas.test.ts skipped: ${postgresMissing}`)

let devnet: Devnet
const cleanup: (() => unknown)[] = []

beforeAll(async () => {
  if (postgresMissing) return
  devnet = await startDevnet()
  await runRegistryFlow(devnet, 'stream replicas')
}, 120_000)

afterAll(async () => {
  for (const stop of cleanup.reverse()) await stop()
  await devnet?.stop()
})

async function postgres(name: string): Promise<TestPostgres> {
  const server = await startPostgres(name)
  cleanup.push(() => server.stop())
  return server
}

async function indexer(overrides: Parameters<typeof startTestIndexer>[1] = {}): Promise<TestIndexer> {
  const started = await startTestIndexer(devnet, { loop: true, ...overrides })
  cleanup.push(() => started.stop())
  return started
}

async function stream(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const opened = await openSse(`${url}/activity/stream?fromBlock=0`, headers)
  cleanup.push(() => opened.close())
  return opened
}

const readiness = async (url: string) => (await (await fetch(`${url}/ready`)).json()) as IndexerReadiness
const chainHead = () => devnet.publicClient.getBlockNumber({ cacheTime: 0 })
const hasTx = (messages: readonly SseMessage[], tx: string) => applyMessages(messages).some((event) => event.transactionHash === tx)

/** The changes a client saw, one per event, in order: what must be the same on every replica. */
const changes = (messages: readonly SseMessage[]) =>
  messages.flatMap((message) =>
    message.event === 'events' || message.event === 'removed' ? (message.data as { events: ActivityEvent[] }).events.map((event) => `${message.event} ${event.blockNumber}.${event.logIndex} ${event.transactionHash}`) : [],
  )

const seqOf = (id: string | undefined) => Number(id?.split('.')[0] ?? Number.NaN)

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

test.skipIf(postgresMissing !== undefined)(
  'a read replica learns the writer’s commits by LISTEN/NOTIFY: with INDEXER_POLL_MS at 60 s its stream still has a new event at once',
  async () => {
    const pg = await postgres('listen')
    const writer = await indexer({ overrides: { databaseUrl: pg.url, pollMs: 20 } })
    await waitFor('the writer to reach the head', async () => (await writer.get('/ready')).status === 200)
    const reader = await indexer({ overrides: { databaseUrl: pg.url, role: 'reader', pollMs: 60_000, headStaleMs: 600_000 } })
    expect(reader.sync.replica()?.role).toBe('reader')
    const live = await stream(reader.url)
    await live.until('the replay', () => applyMessages(live.messages).length === writer.sync.snapshot().events.length)
    const proposal = await proposeLien(devnet, 'notified')
    // Far sooner than the reader's next poll (60 s): only the writer's NOTIFY can have woken it.
    await live.until('the new event on the reader’s stream', () => hasTx(live.messages, proposal.receipt.transactionHash), 15_000)
    expect(reader.logger.lines.join('\n')).toContain('indexer: role reader (INDEXER_ROLE=reader): a read-only replica of ')
  },
  60_000,
)

test.skipIf(postgresMissing !== undefined)(
  'a stream resumed on another replica after its writer was killed, and held across a reorg, gets the same events in the same order as a reader’s stream: no gap, no duplicate, equal to a fresh indexer',
  async () => {
    const pg = await postgres('failover')
    const writer = await startIndexerProcess(devnet, { INDEXER_DATABASE_URL: pg.url })
    cleanup.push(() => writer.stop())
    await writer.output.waitFor(/role writer/, 30_000)
    await waitFor('the writer to reach the head', async () => (await writer.ready()).status === 200)
    const standby = await indexer({ overrides: { databaseUrl: pg.url, pollMs: 50 } })
    const reader = await indexer({ overrides: { databaseUrl: pg.url, role: 'reader', pollMs: 50 } })
    expect([standby.sync.replica()?.role, reader.sync.replica()?.role]).toEqual(['reader', 'reader'])

    const onWriter = await stream(writer.url)
    const onReader = await stream(reader.url)
    const before = [await proposeLien(devnet, 'failover 1'), await proposeLien(devnet, 'failover 2')]
    for (const each of [onWriter, onReader]) await each.until('the first proposals', () => hasTx(each.messages, before[1]!.receipt.transactionHash))

    // The writer dies; its client reconnects to the standby with the last id it had.
    writer.signal('SIGKILL')
    await writer.child.exited
    await onWriter.until('the stream to end with its server', () => onWriter.ended)
    const resumeAt = onWriter.lastEventId!
    const during = await proposeLien(devnet, 'failover during')
    const resumed = await stream(standby.url, { 'last-event-id': resumeAt })
    await waitFor('the standby to become the writer', () => standby.sync.replica()?.role === 'writer', 15_000)
    await resumed.until('the proposal made during the failover', () => hasTx([...onWriter.messages, ...resumed.messages], during.receipt.transactionHash))

    // A reorg under the new writer: both streams retract the orphan.
    const snapshot = await devnet.testClient.snapshot()
    const orphan = await proposeLien(devnet, 'failover orphan')
    await devnet.testClient.mine({ blocks: 1 })
    for (const each of [resumed, onReader]) await each.until('the orphan', () => hasTx(each.messages, orphan.receipt.transactionHash))
    await devnet.testClient.revert({ id: snapshot })
    const replacement = await proposeLien(devnet, 'failover replacement')
    await devnet.testClient.mine({ blocks: 1 })
    for (const each of [resumed, onReader]) await each.until('the retraction and the replacement', () => each.of('removed').length === 1 && hasTx(each.messages, replacement.receipt.transactionHash))

    const fresh = await freshEvents()
    const resumedClient = [...onWriter.messages, ...resumed.messages]
    expect(applyMessages(resumedClient)).toEqual(fresh)
    expect(applyMessages(onReader.messages)).toEqual(fresh)
    // Change by change, the same sequence on both (batched into messages differently), and ids only ever grow.
    expect(changes(resumedClient)).toEqual(changes(onReader.messages))
    const added = changes(resumedClient).filter((change) => change.startsWith('events'))
    expect(new Set(added).size).toBe(added.length)
    for (const messages of [resumedClient, onReader.messages]) {
      const seqs = messages.filter((message) => message.event !== 'status').map((message) => seqOf(message.id))
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
      expect(new Set(seqs).size).toBe(seqs.length)
    }
    expect(seqOf(resumed.messages.find((message) => message.event === 'events')?.id)).toBeGreaterThan(seqOf(resumeAt))
  },
  180_000,
)

test.skipIf(postgresMissing !== undefined)(
  'INDEXER_ROLE=reader with a PostgreSQL role that may only SELECT: serves /activity, the stream, /ready and /status from the database, never takes the writer lock, never calls eth_getLogs, and never becomes the writer',
  async () => {
    const pg = await postgres('readonly')
    const writer = await indexer({ overrides: { databaseUrl: pg.url, pollMs: 20 } })
    await waitFor('the writer to reach the head', async () => (await writer.get('/ready')).status === 200)
    const schema = (writer.logger.lines.join('\n').match(/lock of (indexer_\w+)/) ?? [])[1]!
    const admin = new SQL(pg.url)
    cleanup.push(() => admin.close())
    await admin.unsafe('CREATE ROLE stream_reader LOGIN')
    await admin.unsafe(`GRANT USAGE ON SCHEMA ${schema} TO stream_reader`)
    await admin.unsafe(`GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO stream_reader`)
    const readerUrl = pg.url.replace(/\/\/[^@]+@/, '//stream_reader@')

    const proxy = await startRpcProxy(devnet.rpcUrl)
    cleanup.push(() => proxy.stop())
    const reader = await indexer({ rpcUrl: proxy.url, overrides: { databaseUrl: readerUrl, role: 'reader', pollMs: 50 } })
    const expected = ((await writer.get('/activity')).json as ActivitySnapshot).events
    await waitFor('the reader to serve the writer’s events', async () => ((await reader.get('/activity')).json as ActivitySnapshot).events.length === expected.length)
    expect(((await reader.get('/activity')).json as ActivitySnapshot).events).toEqual(expected)
    expect(await readiness(reader.url)).toMatchObject({ ready: true, role: 'reader' })
    expect((await reader.get('/status')).status).toBe(200)
    const live = await stream(reader.url)
    const proposal = await proposeLien(devnet, 'read-only replica')
    await live.until('the new event on the read-only replica', () => hasTx(live.messages, proposal.receipt.transactionHash))
    // No advisory lock is held by any session of that role, and nothing but head reads went to the node.
    const locks = await admin.unsafe(`SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND a.usename = 'stream_reader'`)
    expect(locks).toHaveLength(0)
    expect(new Set(proxy.methods)).toEqual(new Set(['eth_getBlockByNumber']))

    // The writer goes away: the read-only replica stays a reader, its head and lag still true.
    await writer.stop()
    await devnet.testClient.mine({ blocks: 5 })
    const head = await chainHead()
    await waitFor('the reader to see the head move without a writer', async () => (await readiness(reader.url)).head === head.toString())
    const ready = await readiness(reader.url)
    expect([ready.role, ready.lagBlocks]).toEqual(['reader', Number(head - BigInt(ready.indexedThrough))])
    expect(ready.lagBlocks).toBeGreaterThanOrEqual(5)
    expect(reader.logger.lines.join('\n')).not.toContain('role writer')
    expect(proxy.methods).not.toContain('eth_getLogs')
  },
  120_000,
)

test.skipIf(postgresMissing !== undefined)(
  'PostgreSQL down: every replica keeps reading the head, so head, lagBlocks and stale in /activity, /ready and the stream stay true; back: ready again',
  async () => {
    const pg = await postgres('outage')
    const writer = await indexer({ overrides: { databaseUrl: pg.url, pollMs: 20, staleBlocks: 4 } })
    await waitFor('the writer to reach the head', async () => (await writer.get('/ready')).status === 200)
    const reader = await indexer({ overrides: { databaseUrl: pg.url, role: 'reader', pollMs: 20, staleBlocks: 4 } })
    await waitFor('the reader to be ready', async () => (await reader.get('/ready')).status === 200)
    const live = await stream(reader.url)
    await live.until('a fresh status', () => live.of('status').some((message) => !(message.data as ActivityStreamStatus).stale))

    await pg.pause()
    await devnet.testClient.mine({ blocks: 8 })
    const head = (await chainHead()).toString()
    for (const replica of [writer, reader]) {
      // The head is read on its own clock, the outage seen at the next poll of PostgreSQL: both, in either order.
      await waitFor('the replica to read the new head and see PostgreSQL down', async () => {
        const ready = await readiness(replica.url)
        return ready.head === head && ready.reason === 'database-unreachable'
      }, 10_000)
      const ready = await readiness(replica.url)
      expect([ready.reason, ready.lagBlocks]).toEqual(['database-unreachable', Number(BigInt(head) - BigInt(ready.indexedThrough))])
      expect(ready.lagBlocks).toBeGreaterThanOrEqual(8)
      const activity = (await replica.get('/activity')).json as ActivitySnapshot
      expect([activity.head, activity.lagBlocks, activity.stale]).toEqual([head, ready.lagBlocks, true])
    }
    await live.until('the stream to announce stale with the head', () =>
      live.of('status').some((message) => {
        const status = message.data as ActivityStreamStatus
        return status.stale && status.head === head
      }),
    )

    await pg.resume()
    for (const replica of [writer, reader]) await waitFor('ready again', async () => (await replica.get('/ready')).status === 200, 30_000)
    await live.until('fresh again', () => !(live.of('status').at(-1)!.data as ActivityStreamStatus).stale)
    expect(applyMessages(live.messages)).toEqual(await freshEvents())
  },
  120_000,
)
