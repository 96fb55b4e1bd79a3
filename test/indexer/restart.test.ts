import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { proposeLien, runRegistryFlow } from './registryFlow.ts'
import { startRpcProxy } from './rpcProxy.ts'
import { startTestIndexer } from './startTestIndexer.ts'

let devnet: Devnet
const dir = mkdtempSync(join(tmpdir(), 'indexer-restart-'))
const cleanup: (() => unknown)[] = []

beforeAll(async () => {
  devnet = await startDevnet()
  await runRegistryFlow(devnet, 'before the first start')
})

afterAll(async () => {
  for (const stop of cleanup.reverse()) await stop()
  await devnet?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const chainHead = () => devnet.publicClient.getBlockNumber({ cacheTime: 0 })

/** An indexer on `db` behind its own counting proxy. */
async function proxiedIndexer(db: string) {
  const proxy = await startRpcProxy(devnet.rpcUrl)
  const indexer = await startTestIndexer(devnet, { rpcUrl: proxy.url, overrides: { db } })
  cleanup.push(() => proxy.stop(), () => indexer.stop())
  return { proxy, indexer }
}

/** What a freshly started indexer (empty store) serves now. */
async function fresh() {
  const indexer = await startTestIndexer(devnet)
  cleanup.push(() => indexer.stop())
  await indexer.sync.syncOnce()
  const snapshot = indexer.sync.snapshot()
  await indexer.stop()
  return snapshot
}

test('a restart resumes from the stored checkpoint: no eth_getLogs for blocks already indexed', async () => {
  const db = join(dir, 'resume.sqlite')
  const first = await proxiedIndexer(db)
  await first.indexer.sync.syncOnce()
  const indexed = first.indexer.sync.snapshot()
  expect(indexed.indexedThrough).toBe((await chainHead()).toString())
  expect(first.proxy.logRequests.length).toBeGreaterThan(0)
  await first.indexer.stop()

  // Nothing new: the restart serves the stored events with zero eth_getLogs.
  const second = await proxiedIndexer(db)
  expect(second.indexer.sync.snapshot().events).toEqual(indexed.events)
  await second.indexer.sync.syncOnce()
  expect(second.proxy.logRequests).toEqual([])
  expect(second.indexer.sync.snapshot()).toEqual(indexed)
  expect(second.indexer.logger.lines).toContain(
    `indexer: resuming after block ${indexed.indexedThrough} from ${db} (${indexed.events.length} events held); its hash is checked against the chain first`,
  )
  // The body served from the stored text is byte for byte the snapshot's JSON.
  const ready = await second.indexer.get('/activity')
  expect((ready.json as { stale: boolean }).stale).toBe(false)
  expect(ready.text).toBe(JSON.stringify(second.indexer.sync.snapshot()))
  await second.indexer.stop()

  // New events while down: only the blocks after the checkpoint are fetched.
  const checkpoint = BigInt(indexed.indexedThrough)
  await proposeLien(devnet, 'while the indexer was down')
  await devnet.testClient.mine({ blocks: 3 })
  const third = await proxiedIndexer(db)
  await third.indexer.sync.syncOnce()
  const head = await chainHead()
  expect(third.proxy.logRequests).toEqual([{ from: checkpoint + 1n, to: head, refused: false }])
  expect(third.indexer.sync.snapshot()).toEqual(await fresh())
})

test('a restart after the checkpoint was reorged away while down rewinds and re-indexes the new chain', async () => {
  const db = join(dir, 'reorged.sqlite')
  const base = await chainHead()
  const saved = await devnet.testClient.snapshot()
  const orphan = await proposeLien(devnet, 'orphaned while down')
  await devnet.testClient.mine({ blocks: 2 })
  const first = await proxiedIndexer(db)
  await first.indexer.sync.syncOnce()
  expect(first.indexer.sync.snapshot().events.at(-1)?.transactionHash).toBe(orphan.receipt.transactionHash)
  await first.indexer.stop()

  // While it is down: the blocks after `base` are replaced by a longer chain with another event.
  await devnet.testClient.revert({ id: saved })
  await devnet.testClient.mine({ blocks: 1 })
  const replacement = await proposeLien(devnet, 'replacement while down')
  await devnet.testClient.mine({ blocks: 4 })

  const second = await proxiedIndexer(db)
  await second.indexer.sync.syncOnce()
  const snapshot = second.indexer.sync.snapshot()
  expect(snapshot).toEqual(await fresh())
  expect(snapshot.events.some((event) => event.transactionHash === orphan.receipt.transactionHash)).toBe(false)
  expect(snapshot.events.at(-1)?.transactionHash).toBe(replacement.receipt.transactionHash)
  // Re-fetched from the fork point on, not from deployedAt.
  expect(second.proxy.logRequests.every((request) => request.from > BigInt(devnet.manifest.deployedAt) && request.from <= base + 1n)).toBe(true)
  expect(second.indexer.logger.lines.filter((line) => line.startsWith('warn:'))).toEqual([
    expect.stringMatching(/^warn: indexer: reorg above block \d+: dropped 1 orphaned events, re-indexing$/),
  ])
})

test('a store file of another address set is refused with a message naming INDEXER_DB', async () => {
  const db = join(dir, 'resume.sqlite')
  const other = BigInt(devnet.manifest.deployedAt) + 1n
  await expect(startTestIndexer(devnet, { overrides: { db, deployedAt: other } })).rejects.toThrow(
    `INDEXER_DB ${db} holds another index (deployed_at ${devnet.manifest.deployedAt}, not ${other}): point INDEXER_DB at another file or delete this one`,
  )
})
