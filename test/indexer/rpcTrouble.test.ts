import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { runRegistryFlow } from './registryFlow.ts'
import { startRpcProxy } from './rpcProxy.ts'
import { startTestIndexer, type TestIndexer } from './startTestIndexer.ts'

let devnet: Devnet
let direct: TestIndexer
const cleanup: (() => unknown)[] = []

beforeAll(async () => {
  devnet = await startDevnet()
  await devnet.testClient.mine({ blocks: 40 })
  await runRegistryFlow(devnet, 'trouble')
  await devnet.testClient.mine({ blocks: 10 })
  direct = await startTestIndexer(devnet)
  await direct.sync.syncOnce()
})

afterAll(async () => {
  for (const stop of cleanup.reverse()) await stop()
  await direct?.stop()
  await devnet?.stop()
})

const chainHead = () => devnet.publicClient.getBlockNumber({ cacheTime: 0 })
const heights = (indexer: TestIndexer) => {
  const { indexedThrough, head, lagBlocks, stale } = indexer.sync.snapshot()
  return { indexedThrough, head, lagBlocks, stale }
}

async function proxied(options: Parameters<typeof startRpcProxy>[1] = {}, indexerOptions: Parameters<typeof startTestIndexer>[1] = {}) {
  const proxy = await startRpcProxy(devnet.rpcUrl, options)
  const indexer = await startTestIndexer(devnet, { ...indexerOptions, rpcUrl: proxy.url })
  cleanup.push(() => proxy.stop(), () => indexer.stop())
  return { proxy, indexer }
}

describe('lag and stale', () => {
  test('mining that outruns the indexer shows as lag, and as stale past INDEXER_STALE_BLOCKS', async () => {
    const indexer = await startTestIndexer(devnet, { overrides: { staleBlocks: 64 } })
    cleanup.push(() => indexer.stop())
    await indexer.sync.syncOnce()
    const start = await chainHead()
    expect(heights(indexer)).toEqual({ indexedThrough: `${start}`, head: `${start}`, lagBlocks: 0, stale: false })

    await devnet.testClient.mine({ blocks: 64 })
    await indexer.sync.refreshHead()
    expect(heights(indexer)).toEqual({ indexedThrough: `${start}`, head: `${start + 64n}`, lagBlocks: 64, stale: false })

    await devnet.testClient.mine({ blocks: 1 })
    await indexer.sync.refreshHead()
    expect(heights(indexer)).toEqual({ indexedThrough: `${start}`, head: `${start + 65n}`, lagBlocks: 65, stale: true })

    await indexer.sync.syncOnce()
    expect(heights(indexer)).toEqual({ indexedThrough: `${start + 65n}`, head: `${start + 65n}`, lagBlocks: 0, stale: false })
  })

  test('an indexer that never read the head is stale', async () => {
    const { proxy, indexer } = await proxied()
    proxy.down()
    await indexer.sync.syncOnce()
    const deployedAt = BigInt(devnet.manifest.deployedAt)
    expect(heights(indexer)).toEqual({ indexedThrough: `${deployedAt - 1n}`, head: `${deployedAt - 1n}`, lagBlocks: 0, stale: true })
  })
})

describe('RPC down', () => {
  test('keeps serving the last snapshot with the last known head, turns stale after INDEXER_HEAD_STALE_MS, warns once, catches up', async () => {
    let clock = 1_000_000
    const { proxy, indexer } = await proxied({}, { now: () => clock, overrides: { headStaleMs: 5_000 } })
    await indexer.sync.syncOnce()
    const last = await chainHead()
    const before = await indexer.get('/activity')
    expect(heights(indexer)).toEqual({ indexedThrough: `${last}`, head: `${last}`, lagBlocks: 0, stale: false })

    proxy.down()
    await devnet.testClient.mine({ blocks: 5 })
    for (let i = 0; i < 3; i++) await indexer.sync.syncOnce()
    clock += 5_000
    const during = await indexer.get('/activity')
    expect(during.status).toBe(200)
    expect(during.json).toEqual(before.json)
    expect((await indexer.get('/health')).text).toBe('ok')

    clock += 1
    const late = await indexer.get('/activity')
    expect(late.status).toBe(200)
    expect(late.json).toEqual({ ...(before.json as object), stale: true })
    expect(late.headers.get('etag')).not.toBe(before.headers.get('etag'))

    const warnings = indexer.logger.lines.filter((line) => line.startsWith('warn:'))
    expect(warnings).toEqual([`warn: indexer: cannot read the chain head (HTTP request failed. (ECONNREFUSED: Unable to connect. Is the computer able to access the url?)); serving the last snapshot, indexed through ${last}, until the node answers`])

    proxy.up()
    await indexer.sync.syncOnce()
    expect(heights(indexer)).toEqual({ indexedThrough: `${last + 5n}`, head: `${last + 5n}`, lagBlocks: 0, stale: false })
    expect(indexer.logger.lines.at(-1)).toBe(`indexer: node answers again (head ${last + 5n}); catching up from block ${last + 1n}`)
  })

  test('the running loop survives an outage with one warning and catches up by itself', async () => {
    const { proxy, indexer } = await proxied({}, { loop: true })
    const waitFor = async (done: () => boolean) => {
      const deadline = Date.now() + 5_000
      while (!done() && Date.now() < deadline) await Bun.sleep(20)
    }
    const start = await chainHead()
    await waitFor(() => indexer.sync.snapshot().indexedThrough === `${start}`)
    proxy.down()
    await Bun.sleep(300) // ≈ 15 ticks at pollMs 20
    await devnet.testClient.mine({ blocks: 2 })
    proxy.up()
    await waitFor(() => indexer.sync.snapshot().indexedThrough === `${start + 2n}`)
    expect(heights(indexer)).toEqual({ indexedThrough: `${start + 2n}`, head: `${start + 2n}`, lagBlocks: 0, stale: false })
    expect(indexer.logger.lines.filter((line) => line.startsWith('warn:'))).toHaveLength(1)
  })
})

describe('a node that refuses wide eth_getLogs ranges', () => {
  test('is still fully indexed: ranges halve on refusal and grow back', async () => {
    await direct.sync.syncOnce()
    const { proxy, indexer } = await proxied({ maxLogRange: 3 }, { overrides: { maxRange: 64 } })
    await indexer.sync.syncOnce()
    expect(indexer.sync.snapshot().events).toEqual(direct.sync.snapshot().events)
    expect(heights(indexer)).toEqual(heights(direct))

    const accepted = proxy.logRequests.filter((request) => !request.refused)
    const refused = proxy.logRequests.filter((request) => request.refused)
    expect(refused.length).toBeGreaterThan(0)
    expect(accepted.every((request) => request.to - request.from + 1n <= 3n)).toBe(true)
    // Accepted ranges tile deployedAt … head exactly: no gap, no overlap.
    let next = BigInt(devnet.manifest.deployedAt)
    for (const request of accepted) {
      expect(request.from).toBe(next)
      next = request.to + 1n
    }
    expect(next - 1n).toBe(BigInt(direct.sync.snapshot().indexedThrough))
    // Each refusal halves the next try (or falls back to the largest size accepted); a success bisects
    // toward the smallest refused size, and after 16 successes in a row it tries that size once more.
    const spans = proxy.logRequests.map((request) => `${request.to - request.from + 1n}${request.refused ? '!' : ''}`)
    expect(spans.slice(0, 25)).toEqual(['64!', '32!', '16!', '8!', '4!', '2', ...Array(15).fill('3'), '4!', '3', '3', '3'])
  })

  test('a node refusing every range leaves the index behind (lag, stale) with one warning, then catches up', async () => {
    const { proxy, indexer } = await proxied({}, { overrides: { staleBlocks: 2 } })
    proxy.state.refuseLogs = true
    await indexer.sync.syncOnce()
    await indexer.sync.syncOnce()
    const head = await chainHead()
    const deployedAt = BigInt(devnet.manifest.deployedAt)
    expect(heights(indexer)).toEqual({ indexedThrough: `${deployedAt - 1n}`, head: `${head}`, lagBlocks: Number(head - deployedAt + 1n), stale: true })
    expect(indexer.logger.lines).toEqual([
      expect.stringContaining('listening on'),
      `warn: indexer: indexing stalled at block ${deployedAt} (eth_getLogs refused block ${deployedAt}: Request exceeds defined limit. (query returned more than 10000 results)); retrying every 20 ms`,
    ])

    proxy.state.refuseLogs = false
    await indexer.sync.syncOnce()
    expect(indexer.sync.snapshot().events).toEqual(direct.sync.snapshot().events)
    expect(heights(indexer).stale).toBe(false)
  })
})
