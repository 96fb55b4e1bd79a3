// Indexer metrics: sync position, head, lag, stale, events held, eth_getLogs range
// and calls, and a reorg's count and depth (anvil snapshot/revert), read from the
// registry the metrics listener serves; GET /status reports the last reorg.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { startTestIndexer, type TestIndexer } from '../indexer/startTestIndexer.ts'

let devnet: Devnet
let indexer: TestIndexer

beforeAll(async () => {
  devnet = await startDevnet()
  indexer = await startTestIndexer(devnet)
  await indexer.sync.syncOnce()
}, 60_000)

afterAll(async () => {
  await indexer?.stop()
  await devnet?.stop()
})

const head = () => devnet.publicClient.getBlockNumber({ cacheTime: 0 })
const series = async () => {
  const text = await indexer.indexer.metrics.registry.metrics()
  return new Map(text.split('\n').filter((line) => line && !line.startsWith('#')).map((line) => [line.slice(0, line.lastIndexOf(' ')), line.slice(line.lastIndexOf(' ') + 1)]))
}

test('sync gauges follow the snapshot; eth_getLogs calls and range are counted', async () => {
  const block = await head()
  const seen = await series()
  expect(seen.get('order_relay_indexer_indexed_through')).toBe(String(block))
  expect(seen.get('order_relay_indexer_head_block')).toBe(String(block))
  expect(seen.get('order_relay_indexer_lag_blocks')).toBe('0')
  expect(seen.get('order_relay_indexer_stale')).toBe('0')
  expect(seen.get('order_relay_indexer_events_held{event="LienProposed"}')).toBe('1')
  expect(seen.get('order_relay_indexer_reorgs_total')).toBe('0')
  expect(seen.get('order_relay_rpc_requests_total{method="eth_getLogs"}')).toBe('1')
  // One range from deployedAt to the head.
  expect(seen.get('order_relay_indexer_get_logs_range_blocks')).toBe(String(block - BigInt(devnet.manifest.deployedAt) + 1n))

  await devnet.testClient.mine({ blocks: 3 })
  await indexer.sync.refreshHead()
  const behind = await series()
  expect(behind.get('order_relay_indexer_head_block')).toBe(String(block + 3n))
  expect(behind.get('order_relay_indexer_lag_blocks')).toBe('3')
  await indexer.sync.syncOnce()
  expect((await series()).get('order_relay_indexer_get_logs_range_blocks')).toBe('3')
})

test('a reorg counts once with its depth; /status names it', async () => {
  const checkpoint = await devnet.testClient.snapshot()
  const base = await head()
  await devnet.testClient.mine({ blocks: 2 })
  await indexer.sync.syncOnce()
  await devnet.testClient.revert({ id: checkpoint })
  await devnet.testClient.mine({ blocks: 3 })
  await indexer.sync.syncOnce()

  const seen = await series()
  expect(seen.get('order_relay_indexer_reorgs_total')).toBe('1')
  expect(seen.get('order_relay_indexer_reorg_depth_blocks_count')).toBe('1')
  expect(seen.get('order_relay_indexer_reorg_depth_blocks_sum')).toBe('2')
  expect(seen.get('order_relay_indexer_indexed_through')).toBe(String(base + 3n))
  const status = (await indexer.get('/status')).json as { lastReorg: { forkPoint: string; depth: number } }
  expect(status.lastReorg).toMatchObject({ forkPoint: String(base), depth: 2 })
})
