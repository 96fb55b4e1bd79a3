import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { createPostgresStore, type PostgresStore } from '../../src/indexer/store/index.ts'
import { freePort } from '../../src/shared/index.ts'
import type { ActivitySnapshot, IndexerReadiness } from '../../src/wire/index.ts'
import { watchOutput } from '../helpers/processes.ts'
import { postgresMissing, startPostgres, type TestPostgres } from '../../scripts/lib/index.ts'
import { proposeLien, runRegistryFlow } from './registryFlow.ts'
import { startRpcProxy } from './rpcProxy.ts'
import { startTestIndexer, type TestIndexer } from './startTestIndexer.ts'

if (postgresMissing) console.log(`replicas.test.ts skipped: ${postgresMissing}`)

let devnet: Devnet
let postgres: TestPostgres
let probe: PostgresStore
const cleanup: (() => unknown)[] = []

beforeAll(async () => {
  if (postgresMissing) return
  ;[devnet, postgres] = await Promise.all([startDevnet(), startPostgres()])
  for (const label of ['a', 'b', 'c', 'd']) await runRegistryFlow(devnet, `replicas ${label}`)
  probe = await probeOf(postgres.url)
}, 120_000)

afterAll(async () => {
  for (const stop of cleanup.reverse()) await stop()
  await probe?.close()
  await postgres?.stop()
  await devnet?.stop()
})

/** Waits for `check` to hold, polling, or fails with `what`. */
async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`)
    await Bun.sleep(25)
  }
}

/** A JSON-RPC proxy that answers eth_getLogs slowly, so a one-block-per-range writer is still syncing when killed. */
async function startSlowLogsProxy(upstream: string) {
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: await freePort(),
    async fetch(request) {
      const body = await request.text()
      if (body.includes('eth_getLogs')) await Bun.sleep(150)
      const answer = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      return new Response(await answer.text(), { headers: { 'content-type': 'application/json' } })
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) }
}

async function replica(indexer: TestIndexer): Promise<IndexerReadiness> {
  return (await indexer.get('/ready')).json as IndexerReadiness
}

test.skipIf(postgresMissing !== undefined)(
  'two indexers on one PostgreSQL: one writes, one reads; the writer killed mid-sync, the standby continues; the events equal a fresh indexer’s',
  async () => {
    const head = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
    const deployedAt = BigInt(devnet.manifest.deployedAt)
    expect(head - deployedAt).toBeGreaterThan(20n)

    // The writer: the real CLI in a child process, one block per range behind a slow node.
    const slow = await startSlowLogsProxy(devnet.rpcUrl)
    cleanup.push(() => slow.stop())
    const { registry, inbox, pool, escrow } = devnet.manifest.contracts
    const child = Bun.spawn(['bun', 'src/cli/main.ts', 'indexer', '--port', '0'], {
      env: {
        ...process.env,
        INDEXER_CHAIN_ID: String(devnet.chainId),
        INDEXER_RPC_URL: slow.url,
        INDEXER_ADDRESSES: [registry, inbox, pool, escrow].join(','),
        INDEXER_DEPLOYED_AT: devnet.manifest.deployedAt,
        INDEXER_DATABASE_URL: postgres.url,
        INDEXER_MAX_RANGE: '1',
        INDEXER_POLL_MS: '50',
      },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    cleanup.push(() => child.kill('SIGKILL'))
    const output = watchOutput(child)
    await output.waitFor(/role writer/, 30_000)

    // The second indexer, in this process behind a counting proxy: a reader while the child holds the lock.
    const proxy = await startRpcProxy(devnet.rpcUrl)
    cleanup.push(() => proxy.stop())
    const standby = await startTestIndexer(devnet, { rpcUrl: proxy.url, loop: true, overrides: { databaseUrl: postgres.url, pollMs: 50 } })
    cleanup.push(() => standby.stop())
    expect(standby.sync.replica()).toEqual({ role: 'reader', problem: undefined, failedPolls: 0 })
    expect((await replica(standby)).role).toBe('reader')
    expect(standby.logger.lines.join('\n')).toContain('indexer: role reader: another process holds the writer lock of ')

    // Mid-sync: the writer has committed some ranges, not all. The reader serves what is stored.
    await until('the writer to commit 10 blocks', async () => ((await probe.checkpoint())?.block ?? 0n) >= deployedAt + 10n)
    const stored = (await probe.checkpoint())!.block
    expect(stored).toBeLessThan(head)
    await until('the reader to serve the stored checkpoint', () => standby.sync.status().indexedThrough >= stored)
    // What it serves, followed range by range, is what the store holds up to the same block.
    const mid = standby.sync.snapshot()
    const storedMid = (await probe.load(10_000)).events.filter((event) => BigInt(event.blockNumber) <= BigInt(mid.indexedThrough))
    expect(mid.events).toEqual(storedMid)
    // The writer kept its lock while committing (no lock check ever failed inside a commit).
    expect(output.text).not.toContain('lost the writer lock')
    expect(output.text).not.toContain('warn:')
    child.kill('SIGKILL')
    await child.exited
    expect(proxy.methods).not.toContain('eth_getLogs')

    // The standby takes the lock (the dead writer's connection closed) and finishes from the stored checkpoint.
    await until('the standby to become the writer', () => standby.sync.replica()?.role === 'writer', 15_000)
    expect(standby.logger.lines.join('\n')).toContain('indexer: role writer: holds the PostgreSQL advisory lock of ')
    await until('the standby to reach the head', async () => (await standby.get('/ready')).status === 200)
    expect(await replica(standby)).toEqual({ ready: true, role: 'writer', indexedThrough: head.toString(), head: head.toString(), lagBlocks: 0 })
    expect(proxy.logRequests[0]!.from).toBeGreaterThan(deployedAt)

    // Nothing lost, nothing twice: the same events as a fresh single indexer (embedded store).
    const single = await startTestIndexer(devnet)
    cleanup.push(() => single.stop())
    await single.sync.syncOnce()
    const expected = single.sync.snapshot().events
    // Four lien lives (each proposed, recorded, funded, released with their pool and escrow events) and the seed's events.
    expect(expected.length).toBeGreaterThan(4 * 5)
    const served = (await standby.get('/activity')).json as ActivitySnapshot
    expect(served.events).toEqual([...expected])
    expect(new Set(served.events.map((event) => `${event.blockNumber}.${event.logIndex}`)).size).toBe(expected.length)
    expect((await probe.load(10_000)).events).toEqual([...expected])

    // A read-only replica serves /activity (and its queries) equal to the writer's.
    const reader = await startTestIndexer(devnet, { loop: true, overrides: { databaseUrl: postgres.url, pollMs: 50 } })
    cleanup.push(() => reader.stop())
    await until('the reader to serve the writer’s events', async () => ((await reader.get('/activity')).json as ActivitySnapshot).events.length === expected.length)
    expect(((await reader.get('/activity')).json as ActivitySnapshot).events).toEqual(served.events)
    const query = '/activity?name=LienRecorded,LienReleased&limit=3'
    expect((await reader.get(query)).json).toEqual((await standby.get(query)).json)
    expect(await replica(reader)).toEqual({ ready: true, role: 'reader', indexedThrough: head.toString(), head: head.toString(), lagBlocks: 0 })
  },
  180_000,
)

test.skipIf(postgresMissing !== undefined)(
  'PostgreSQL down at run time: /ready 503 database-unreachable, one warning per outage, /activity keeps serving; back: the writer again',
  async () => {
    const own = await startPostgres('outage')
    cleanup.push(() => own.stop())
    const indexer = await startTestIndexer(devnet, { loop: true, overrides: { databaseUrl: own.url, pollMs: 20 } })
    cleanup.push(() => indexer.stop())
    await until('the writer to reach the head', async () => (await indexer.get('/ready')).status === 200)
    const events = (indexer.sync.snapshot().events).length
    expect(events).toBeGreaterThan(0)

    await own.pause()
    await until('/ready to say the database is unreachable', async () => (await replica(indexer)).reason === 'database-unreachable')
    const down = await indexer.get('/ready')
    expect(down.status).toBe(503)
    expect((down.json as IndexerReadiness).message).toStartWith('PostgreSQL cannot be reached (')
    // Many polls later, still one warning for this outage.
    const polls = indexer.logger.lines.length
    await until('ten failed polls of PostgreSQL in this outage', () => (indexer.sync.replica()?.failedPolls ?? 0) >= 10)
    const warnings = indexer.logger.lines.filter((line) => line.includes('PostgreSQL cannot be reached'))
    expect(warnings.length).toBe(1)
    expect(warnings[0]).toEndWith(`retrying every 20 ms (INDEXER_DATABASE_URL)`)
    expect(indexer.logger.lines.length - polls).toBeLessThan(3)
    const served = await indexer.get('/activity')
    expect(served.status).toBe(200)
    expect((served.json as ActivitySnapshot).events.length).toBe(events)

    await own.resume()
    await until('the indexer to be ready again', async () => (await indexer.get('/ready')).status === 200, 30_000)
    expect(await replica(indexer)).toMatchObject({ ready: true, role: 'writer' })
    expect(indexer.logger.lines.filter((line) => line.includes('indexer: PostgreSQL answers again')).length).toBe(1)
  },
  120_000,
)

test.skipIf(postgresMissing !== undefined)(
  'a reorg found by the next writer: the standby repairs what the old writer stored (orphan dropped, replacement indexed)',
  async () => {
    const own = await startPostgres('handover')
    cleanup.push(() => own.stop())
    const snapshot = await devnet.testClient.snapshot()
    const orphan = await proposeLien(devnet, 'orphaned across writers')
    await devnet.testClient.mine({ blocks: 2 })
    const height = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })

    // The first writer indexes the orphan on its first tick, then rests (a long poll) and never sees the reorg.
    const first = await startTestIndexer(devnet, { loop: true, overrides: { databaseUrl: own.url, pollMs: 60_000 } })
    cleanup.push(() => first.stop())
    await until('the first writer to index the orphan', () => first.sync.snapshot().events.some((event) => event.transactionHash === orphan.receipt.transactionHash))
    const second = await startTestIndexer(devnet, { loop: true, overrides: { databaseUrl: own.url, pollMs: 20 } })
    cleanup.push(() => second.stop())
    expect(second.sync.replica()?.role).toBe('reader')
    expect(second.sync.snapshot().events.at(-1)?.transactionHash).toBe(orphan.receipt.transactionHash)

    // Same height, other blocks: the orphan's block is replaced.
    await devnet.testClient.revert({ id: snapshot })
    await devnet.testClient.mine({ blocks: 1 })
    const replacement = await proposeLien(devnet, 'replacement across writers')
    await devnet.testClient.mine({ blocks: 1 })
    expect(await devnet.publicClient.getBlockNumber({ cacheTime: 0 })).toBe(height)

    await first.stop()
    // One /ready answer says both: a role read apart from it could be the writer's while the 200 was
    // still the reader's (ready at lag 0 on what the old writer stored, orphan included).
    await until('the second to become the writer and repair', async () => {
      const ready = await second.get('/ready')
      return ready.status === 200 && (ready.json as IndexerReadiness).role === 'writer'
    }, 15_000)
    const events = second.sync.snapshot().events
    expect(events.some((event) => event.transactionHash === orphan.receipt.transactionHash)).toBe(false)
    expect(events.at(-1)?.transactionHash).toBe(replacement.receipt.transactionHash)
    expect(second.logger.lines.some((line) => line.startsWith('warn: indexer: reorg above block '))).toBe(true)

    const single = await startTestIndexer(devnet)
    cleanup.push(() => single.stop())
    await single.sync.syncOnce()
    expect(events).toEqual(single.sync.snapshot().events)
    const stored = await probeOf(own.url).then(async (store) => {
      const state = await store.load(10_000)
      await store.close()
      return state
    })
    expect(stored.events).toEqual([...events])
    expect(stored.checkpoint?.block).toBe(height)
  },
  120_000,
)

/** A store on `url` for this devnet's index, to read what the writer committed. */
async function probeOf(url: string) {
  const { registry, inbox, pool, escrow } = devnet.manifest.contracts
  const store = createPostgresStore({
    url,
    identity: { chainId: devnet.chainId, addresses: [registry, inbox, pool, escrow], deployedAt: BigInt(devnet.manifest.deployedAt) },
    retention: 10_000,
    hashWindow: 128,
  })
  await store.open()
  return store
}
