import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { proposeLien } from './registryFlow.ts'
import { startRpcProxy } from './rpcProxy.ts'
import { startTestIndexer, type TestIndexer } from './startTestIndexer.ts'

let devnet: Devnet
const cleanup: (() => unknown)[] = []

beforeAll(async () => {
  devnet = await startDevnet()
})

afterAll(async () => {
  for (const stop of cleanup.reverse()) await stop()
  await devnet?.stop()
})

const chainHead = () => devnet.publicClient.getBlockNumber({ cacheTime: 0 })

async function freshSnapshot() {
  const indexer = await startTestIndexer(devnet)
  cleanup.push(() => indexer.stop())
  await indexer.sync.syncOnce()
  return indexer.sync.snapshot()
}

const readiness = async (indexer: TestIndexer) => {
  const { status, json } = await indexer.get('/ready')
  return { status, reason: (json as { reason?: string }).reason }
}

test('a reorg 200 blocks deep (past the 128 kept hashes) with a replacement event: the snapshot equals a fresh indexer\'s', async () => {
  const proxy = await startRpcProxy(devnet.rpcUrl)
  cleanup.push(() => proxy.stop())
  const indexer = await startTestIndexer(devnet, { rpcUrl: proxy.url })
  cleanup.push(() => indexer.stop())
  await indexer.sync.syncOnce()
  const base = await chainHead()
  const saved = await devnet.testClient.snapshot()

  // The old chain: an event right after `base`, then 200 more blocks.
  const orphan = await proposeLien(devnet, 'deep orphan')
  await devnet.testClient.mine({ blocks: 200 })
  await indexer.sync.syncOnce()
  expect(indexer.sync.snapshot().indexedThrough).toBe((base + 201n).toString())

  // The new chain forks at `base`: a replacement event 5 blocks later, and it is longer.
  await devnet.testClient.revert({ id: saved })
  await devnet.testClient.mine({ blocks: 5 })
  const replacement = await proposeLien(devnet, 'deep replacement')
  await devnet.testClient.mine({ blocks: 200 })
  const head = await chainHead()
  expect(head).toBe(base + 206n)

  // The repair is found, but the node refuses the logs for now: stale, not ready, nothing orphaned served.
  proxy.state.refuseLogs = true
  await indexer.sync.syncOnce()
  const repairing = indexer.sync.snapshot()
  expect(repairing.stale).toBe(true)
  expect(repairing.events.some((event) => event.transactionHash === orphan.receipt.transactionHash)).toBe(false)
  expect(BigInt(repairing.indexedThrough)).toBeLessThanOrEqual(base)
  expect(await readiness(indexer)).toEqual({ status: 503, reason: 'repairing' })
  const warning = indexer.logger.lines.find((line) => line.startsWith('warn: indexer: reorg above block'))
  expect(warning).toMatch(
    new RegExp(`^warn: indexer: reorg above block (\\d+): dropped 1 orphaned events, re-indexing \\(\\d+ blocks deep, past the 128 kept block hashes: fork found among \\d+ stored hashes in \\d+ header reads; stale until caught up\\)$`),
  )

  proxy.state.refuseLogs = false
  await indexer.sync.syncOnce()
  const repaired = indexer.sync.snapshot()
  expect(repaired).toEqual(await freshSnapshot())
  expect(repaired.stale).toBe(false)
  expect(repaired.indexedThrough).toBe(head.toString())
  expect(repaired.events.at(-1)?.transactionHash).toBe(replacement.receipt.transactionHash)
  expect(await readiness(indexer)).toEqual({ status: 200, reason: undefined })
  expect(indexer.logger.lines).toContain(`indexer: reorg repaired, indexed through block ${head} again`)
})

test('a reorg below every stored hash re-syncs from deployedAt', async () => {
  const indexer = await startTestIndexer(devnet)
  cleanup.push(() => indexer.stop())
  // Forget the chain the store knew: point the indexer at a store holding only hashes the chain never had.
  await indexer.sync.syncOnce()
  const saved = await devnet.testClient.snapshot()
  await devnet.testClient.mine({ blocks: 3 })
  const late = await startTestIndexer(devnet, { overrides: { deployedAt: (await chainHead()) - 1n } })
  cleanup.push(() => late.stop())
  const orphan = await proposeLien(devnet, 'only event the late indexer saw')
  await late.sync.syncOnce()
  expect(late.sync.snapshot().events.map((event) => event.transactionHash)).toEqual([orphan.receipt.transactionHash])

  await devnet.testClient.revert({ id: saved })
  await devnet.testClient.mine({ blocks: 8 })
  await late.sync.syncOnce()
  expect(late.sync.snapshot().events).toEqual([])
  expect(late.sync.snapshot().indexedThrough).toBe((await chainHead()).toString())
  expect(late.logger.lines.filter((line) => line.startsWith('warn:'))).toEqual([
    expect.stringMatching(/^warn: indexer: reorg below every stored block hash \(block \d+ is no longer the chain's; none of \d+ stored hashes is\): dropped 1 events, re-syncing from deployedAt \d+; stale until caught up$/),
  ])
})

test('a reorg between two ranges of one tick is caught before the next range is kept', async () => {
  const proxy = await startRpcProxy(devnet.rpcUrl)
  cleanup.push(() => proxy.stop())
  const indexer = await startTestIndexer(devnet, { rpcUrl: proxy.url, overrides: { maxRange: 4 } })
  cleanup.push(() => indexer.stop())
  await indexer.sync.syncOnce()
  const saved = await devnet.testClient.snapshot()
  const orphan = await proposeLien(devnet, 'orphan between ranges')
  await devnet.testClient.mine({ blocks: 10 })

  // Right after the first range's logs are read, the chain forks at `base` with another event.
  let replacement: Awaited<ReturnType<typeof proposeLien>> | undefined
  proxy.state.afterLogs = async () => {
    await devnet.testClient.revert({ id: saved })
    await devnet.testClient.mine({ blocks: 1 })
    replacement = await proposeLien(devnet, 'replacement between ranges')
    await devnet.testClient.mine({ blocks: 12 })
  }
  await indexer.sync.syncOnce()
  const snapshot = indexer.sync.snapshot()
  expect(snapshot.events.some((event) => event.transactionHash === orphan.receipt.transactionHash)).toBe(false)
  expect(snapshot.events.at(-1)?.transactionHash).toBe(replacement?.receipt.transactionHash)
  expect(snapshot).toEqual(await freshSnapshot())
})
