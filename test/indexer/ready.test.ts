import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { runRegistryFlow } from './registryFlow.ts'
import { startRpcProxy } from './rpcProxy.ts'
import { startTestIndexer } from './startTestIndexer.ts'

let devnet: Devnet
const cleanup: (() => unknown)[] = []

beforeAll(async () => {
  devnet = await startDevnet()
  await runRegistryFlow(devnet, 'ready')
})

afterAll(async () => {
  for (const stop of cleanup.reverse()) await stop()
  await devnet?.stop()
})

const chainHead = () => devnet.publicClient.getBlockNumber({ cacheTime: 0 })

test('GET /ready: 503 with a reason through backfill, staleness and an outage, 200 once caught up; /health stays ok', async () => {
  const proxy = await startRpcProxy(devnet.rpcUrl)
  let clock = 1_000_000
  const indexer = await startTestIndexer(devnet, { rpcUrl: proxy.url, now: () => clock, overrides: { staleBlocks: 4, headStaleMs: 5_000 } })
  cleanup.push(() => proxy.stop(), () => indexer.stop())
  const ready = async () => {
    const { status, json, headers } = await indexer.get('/ready')
    expect(headers.get('content-type')).toStartWith('application/json')
    return { status, json }
  }
  const deployedAt = BigInt(devnet.manifest.deployedAt)

  // Started, head never read.
  expect(await ready()).toEqual({
    status: 503,
    json: { ready: false, reason: 'head-unreadable', message: 'the chain head has not been read yet', indexedThrough: `${deployedAt - 1n}`, head: null, lagBlocks: 0 },
  })

  // Backfilling: the head is known, the logs are refused for now.
  proxy.state.refuseLogs = true
  await indexer.sync.syncOnce()
  let head = await chainHead()
  const lag = Number(head - deployedAt + 1n)
  expect(await ready()).toEqual({
    status: 503,
    json: { ready: false, reason: 'backfilling', message: `catching up: indexed through block ${deployedAt - 1n} of ${head}`, indexedThrough: `${deployedAt - 1n}`, head: `${head}`, lagBlocks: lag },
  })

  // Caught up.
  proxy.state.refuseLogs = false
  await indexer.sync.syncOnce()
  expect(await ready()).toEqual({ status: 200, json: { ready: true, indexedThrough: `${head}`, head: `${head}`, lagBlocks: 0 } })

  // Falling more than INDEXER_STALE_BLOCKS behind after having caught up: stale.
  await devnet.testClient.mine({ blocks: 5 })
  await indexer.sync.refreshHead()
  head = await chainHead()
  expect(await ready()).toEqual({
    status: 503,
    json: { ready: false, reason: 'stale', message: '5 blocks behind the head, more than INDEXER_STALE_BLOCKS (4)', indexedThrough: `${head - 5n}`, head: `${head}`, lagBlocks: 5 },
  })
  await indexer.sync.syncOnce()
  expect((await ready()).status).toBe(200)

  // The node goes away: ready until the head has been unreadable for INDEXER_HEAD_STALE_MS, then 503.
  proxy.down()
  await indexer.sync.syncOnce()
  expect((await ready()).status).toBe(200)
  clock += 5_001
  await indexer.sync.syncOnce()
  expect(await ready()).toEqual({
    status: 503,
    json: { ready: false, reason: 'head-unreadable', message: 'the chain head could not be read for over 5000 ms', indexedThrough: `${head}`, head: `${head}`, lagBlocks: 0 },
  })
  expect(await indexer.get('/health')).toMatchObject({ status: 200, text: 'ok' })

  // It comes back: ready again.
  proxy.up()
  await indexer.sync.syncOnce()
  expect(await ready()).toEqual({ status: 200, json: { ready: true, indexedThrough: `${head}`, head: `${head}`, lagBlocks: 0 } })
})
