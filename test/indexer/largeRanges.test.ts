// Backfills where a block range holds a lot: an eth_getLogs answer over viem's default
// 10 MiB limit is read in one request (under the limit, it would be refused after the
// node had sent it, at every size down to one block), and a range with more events than the
// retention only decodes the newest ones (the rest would be dropped at once).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { createLogDecoder } from '../../src/indexer/sync/decode.ts'
import { createRangeSizer } from '../../src/indexer/sync/fetchLogs.ts'
import { indexRange } from '../../src/indexer/sync/indexRange.ts'
import { runRegistryFlow } from './registryFlow.ts'
import { startTestIndexer, type TestIndexer } from './startTestIndexer.ts'

let devnet: Devnet
let direct: TestIndexer
const cleanup: (() => unknown)[] = []

beforeAll(async () => {
  devnet = await startDevnet()
  for (const label of ['a', 'b', 'c']) await runRegistryFlow(devnet, `large ranges ${label}`)
  direct = await startTestIndexer(devnet)
  await direct.sync.syncOnce()
}, 60_000)

afterAll(async () => {
  for (const stop of cleanup.reverse()) await stop()
  await direct?.stop()
  await devnet?.stop()
})

/** A node whose eth_getLogs answers carry `padding` bytes of trailing whitespace (still valid JSON). */
function paddingProxy(padding: number) {
  let logCalls = 0
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const text = await request.text()
      const answer = await fetch(devnet.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text })
      const body = await answer.text()
      const isLogs = text.includes('"eth_getLogs"')
      if (isLogs) logCalls++
      return new Response(isLogs ? body + ' '.repeat(padding) : body, { headers: { 'content-type': 'application/json' } })
    },
  })
  cleanup.push(() => server.stop(true))
  return {
    url: `http://127.0.0.1:${server.port}`,
    get logCalls() {
      return logCalls
    },
  }
}

test('an eth_getLogs answer over 10 MiB is read at once, not refused and halved', async () => {
  const proxy = paddingProxy(11 * 2 ** 20)
  const indexer = await startTestIndexer(devnet, { rpcUrl: proxy.url })
  cleanup.push(() => indexer.stop())
  await indexer.sync.syncOnce()
  expect(indexer.sync.snapshot().events).toEqual(direct.sync.snapshot().events)
  expect(indexer.sync.snapshot().indexedThrough).toBe(direct.sync.snapshot().indexedThrough)
  // The whole chain is one range under INDEXER_MAX_RANGE: one request.
  expect(proxy.logCalls).toBe(1)
  expect(indexer.logger.lines.filter((line) => line.startsWith('warn'))).toEqual([])
}, 30_000)

test('a range with more events than the retention decodes only the newest ones', async () => {
  const { registry, inbox, pool, escrow } = devnet.manifest.contracts
  const addresses = [registry, inbox, pool, escrow] as const
  const decodeLog = createLogDecoder(addresses)
  let decoded = 0
  const head = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
  const parameters = {
    address: addresses,
    fromBlock: BigInt(devnet.manifest.deployedAt),
    toBlock: head,
    checkpoint: undefined,
    sizer: createRangeSizer(2_000),
    decode: (log: Parameters<typeof decodeLog>[0]) => (decoded++, decodeLog(log)),
  }
  const all = await indexRange(devnet.publicClient, parameters)
  expect(all.skipped).toBe(0)
  const total = all.events.length
  expect(total).toBeGreaterThan(15)

  decoded = 0
  const newest = await indexRange(devnet.publicClient, { ...parameters, keep: 5 })
  expect(decoded).toBe(5)
  expect(newest.skipped).toBe(total - 5)
  expect(newest.events).toEqual(all.events.slice(-5))
  expect(newest.end).toEqual(all.end)

  // Through the indexer: the same five newest events, and the feed says it was truncated.
  const small = await startTestIndexer(devnet, { overrides: { retention: 5 } })
  cleanup.push(() => small.stop())
  await small.sync.syncOnce()
  expect(small.sync.snapshot().events).toEqual(direct.sync.snapshot().events.slice(-5))
  expect(small.sync.snapshot().truncated).toBe(true)
})
