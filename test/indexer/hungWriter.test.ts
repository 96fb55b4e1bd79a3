// A hung writer is replaced: a writer process stopped with SIGSTOP, or whose connection to
// PostgreSQL is black-holed (packets dropped, nothing closed), holds the writer lock but
// commits nothing while the chain moves; after INDEXER_WRITER_TIMEOUT_MS a standby ends
// its session and takes the lead, a read replica's stream goes on without a gap, and the
// old writer, when it wakes (SIGCONT, or the network heals), writes nothing, steps down and
// serves as a reader. Everything ends equal to a fresh indexer.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { createPostgresStore } from '../../src/indexer/store/index.ts'
import type { ActivityEvent, ActivitySnapshot } from '../../src/wire/index.ts'
import { type IndexerProcess, startIndexerProcess } from './indexerProcess.ts'
import { postgresMissing, startPostgres } from '../../scripts/lib/index.ts'
import { proposeLien, runRegistryFlow } from './registryFlow.ts'
import { applyMessages, openSse, type SseMessage } from './sseReader.ts'
import { startTcpProxy } from './tcpProxy.ts'
import { startTestIndexer, type TestIndexer } from './startTestIndexer.ts'
import { waitFor } from '../helpers/waitFor.ts'

if (postgresMissing) console.log(`hungWriter.test.ts skipped: ${postgresMissing}`)

const writerTimeoutMs = 1_500
let devnet: Devnet
const cleanup: (() => unknown)[] = []

beforeAll(async () => {
  if (postgresMissing) return
  devnet = await startDevnet()
  await runRegistryFlow(devnet, 'hung writer')
}, 120_000)

afterAll(async () => {
  for (const stop of cleanup.reverse()) await stop()
  await devnet?.stop()
})

const hasTx = (messages: readonly SseMessage[], tx: string) => applyMessages(messages).some((event) => event.transactionHash === tx)

/** Proposes liens one after another (the chain moves a block each) until stopped; returns their receipts. */
function produce() {
  let halted = false
  const made: string[] = []
  const running = (async () => {
    let n = 0
    while (!halted) made.push((await proposeLien(devnet, `hung writer ${Date.now()} ${n++}`)).receipt.transactionHash)
  })()
  return {
    made,
    /** The next proposal after this call, once it is mined. */
    async next(): Promise<string> {
      const count = made.length
      await waitFor('a new proposal', () => made.length > count)
      return made[count]!
    },
    async stop() {
      halted = true
      await running
    },
  }
}

/** The writer (a child process), a standby and a read-only replica with a stream on it, on `databaseUrl` (the writer's may differ: a proxy). */
async function replicas(databaseUrl: string, writerUrl = databaseUrl) {
  const writer = await startIndexerProcess(devnet, { INDEXER_DATABASE_URL: writerUrl, INDEXER_WRITER_TIMEOUT_MS: String(writerTimeoutMs) })
  cleanup.push(() => writer.stop())
  await writer.output.waitFor(/role writer/, 30_000)
  await waitFor('the writer to reach the head', async () => (await writer.ready()).status === 200)
  const standby = await startTestIndexer(devnet, { loop: true, overrides: { databaseUrl, pollMs: 50, writerTimeoutMs } })
  cleanup.push(() => standby.stop())
  const reader = await startTestIndexer(devnet, { loop: true, overrides: { databaseUrl, role: 'reader', pollMs: 50 } })
  cleanup.push(() => reader.stop())
  const live = await openSse(`${reader.url}/activity/stream?fromBlock=0`)
  cleanup.push(() => live.close())
  return { writer, standby, reader, live }
}

/** After the takeover: the standby is the only writer, the old one a reader serving the same, all equal to a fresh indexer and to the store. */
async function checkAfter(databaseUrl: string, old: IndexerProcess, standby: TestIndexer, reader: TestIndexer, live: Awaited<ReturnType<typeof openSse>>) {
  const fresh = await startTestIndexer(devnet)
  cleanup.push(() => fresh.stop())
  await fresh.sync.syncOnce()
  const expected = [...fresh.sync.snapshot().events]
  const served = async (url: string) => ((await (await fetch(`${url}/activity`)).json()) as ActivitySnapshot).events
  await waitFor('the new writer to serve every event', async () => JSON.stringify(await served(standby.url)) === JSON.stringify(expected))
  await waitFor('the old writer, now a reader, to serve the same events', async () => JSON.stringify(await served(old.url)) === JSON.stringify(expected))
  await waitFor('the read replica’s stream to hold the same events', () => JSON.stringify(applyMessages(live.messages)) === JSON.stringify(expected))
  expect((await old.ready()).role).toBe('reader')
  expect(standby.sync.replica()?.role).toBe('writer')
  expect(reader.sync.replica()?.role).toBe('reader')
  // The old writer announced the lead once, and the standby once: never two at a time, never back.
  expect(old.output.text.match(/role writer/g)).toHaveLength(1)
  expect(standby.logger.lines.filter((line) => line.includes('role writer'))).toHaveLength(1)
  // The store's history: numbers only ever grow, each event once, as the chain has them.
  const { registry, inbox, pool, escrow } = devnet.manifest.contracts
  const probe = createPostgresStore({ url: databaseUrl, identity: { chainId: devnet.chainId, addresses: [registry, inbox, pool, escrow], deployedAt: BigInt(devnet.manifest.deployedAt) }, retention: 10_000, hashWindow: 128, readOnly: true })
  await probe.open()
  try {
    const stored = await probe.load(10_000)
    expect(stored.events).toEqual(expected)
    expect(stored.seqs).toEqual([...new Set(stored.seqs)].sort((a, b) => a - b))
  } finally {
    await probe.close()
  }
  // The stream never sent an event twice.
  const sent = live.of('events').flatMap((message) => (message.data as { events: ActivityEvent[] }).events.map((event) => `${event.blockNumber}.${event.logIndex}`))
  expect(new Set(sent).size).toBe(sent.length)
}

test.skipIf(postgresMissing !== undefined)(
  'SIGSTOP on the writer: a standby ends its session after INDEXER_WRITER_TIMEOUT_MS of no progress while the chain moves and takes over; the stream goes on; SIGCONT: the old writer writes nothing and steps down',
  async () => {
    const pg = await startPostgres('sigstop')
    cleanup.push(() => pg.stop())
    const { writer, standby, reader, live } = await replicas(pg.url)
    const producer = produce()
    cleanup.push(() => producer.stop())
    await live.until('a proposal from the writer', async () => hasTx(live.messages, await producer.next()))

    writer.signal('SIGSTOP')
    await waitFor('the standby to take over from the stopped writer', () => standby.sync.replica()?.role === 'writer', 30_000)
    const takeover = standby.logger.lines.find((line) => line.includes('committed nothing for'))
    expect(takeover).toMatch(
      new RegExp(`^warn: indexer: the writer \\(PostgreSQL session \\d+\\) committed nothing for \\d+ ms while the chain moved ahead \\(head \\d+, stored checkpoint \\d+\\): ended its session \\(INDEXER_WRITER_TIMEOUT_MS=${writerTimeoutMs}\\); taking over$`),
    )
    // The read replica's stream goes on with the new writer's commits.
    await live.until('a proposal indexed by the new writer', async () => hasTx(live.messages, await producer.next()))

    writer.signal('SIGCONT')
    await writer.output.waitFor(/lost the writer lock/, 30_000)
    await live.until('another proposal after the old writer woke', async () => hasTx(live.messages, await producer.next()))
    await producer.stop()
    await checkAfter(pg.url, writer, standby, reader, live)
  },
  180_000,
)

test.skipIf(postgresMissing !== undefined)(
  'a black-holed connection between the writer and PostgreSQL: the standby ends the writer’s session and takes over; when the network heals, the old writer’s commit fails, it steps down and serves as a reader',
  async () => {
    const pg = await startPostgres('blackhole')
    cleanup.push(() => pg.stop())
    const path = await startTcpProxy(pg.port)
    cleanup.push(() => path.stop())
    const { writer, standby, reader, live } = await replicas(pg.url, pg.url.replace(`:${pg.port}/`, `:${path.port}/`))
    const producer = produce()
    cleanup.push(() => producer.stop())
    await live.until('a proposal from the writer', async () => hasTx(live.messages, await producer.next()))

    path.blackhole()
    await waitFor('the standby to take over from the cut-off writer', () => standby.sync.replica()?.role === 'writer', 30_000)
    expect(standby.logger.lines.some((line) => line.includes('committed nothing for') && line.includes('ended its session'))).toBe(true)
    await live.until('a proposal indexed by the new writer', async () => hasTx(live.messages, await producer.next()))
    // Cut off, the old writer still reads the head: it knows how far behind it is.
    const cut = await writer.ready()
    expect([cut.role, cut.head === null]).toEqual(['writer', false])

    path.heal()
    await writer.output.waitFor(/lost the writer lock/, 30_000)
    await producer.stop()
    await checkAfter(pg.url, writer, standby, reader, live)
  },
  180_000,
)
