// A real Prometheus server (Debian's package) scrapes the relayer's and the indexer's
// metrics listeners every second; its HTTP query API then returns the series of a
// settled order and the indexer's head.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { hasPrometheus, prometheusMissing, type ScrapedDevnet, startScrapedDevnet } from '../helpers/prometheus.ts'

if (!hasPrometheus) console.log(prometheusMissing('test/ops/prometheus.test.ts'))

let stack: ScrapedDevnet

beforeAll(async () => {
  if (hasPrometheus) stack = await startScrapedDevnet()
}, 120_000)

afterAll(async () => {
  await stack?.stop()
}, 30_000)

describe.skipIf(!hasPrometheus)('Prometheus scrapes both listeners', () => {
  test('both targets are up', async () => {
    const up = await stack.queryUntil('up', (samples) => samples.length === 2 && samples.every((s) => s.value[1] === '1'), 'the relayer and indexer targets never came up')
    expect(up.map((sample) => sample.metric.job).sort()).toEqual(['indexer', 'relayer'])
  })

  test('a settled order appears in the relayer series', async () => {
    const { devnet, relayer, queryUntil } = stack
    const answer = await relayer.post(await signed(devnet, allocationOrder(devnet)))
    expect(answer.status).toBe(200)
    const settled = await queryUntil(
      'order_relay_relayer_http_requests_total{route="/broker",code="OK"}',
      (samples) => samples.length === 1 && samples[0]!.value[1] === '1',
      'Prometheus never saw the settled order',
    )
    expect(settled[0]!.metric).toMatchObject({ job: 'relayer', route: '/broker', status: '200', code: 'OK' })
    const latency = await queryUntil('order_relay_relayer_settlement_duration_seconds_count', (samples) => samples[0]?.value[1] === '1', 'no settlement latency sample')
    expect(latency).toHaveLength(1)
    const txs = await queryUntil('order_relay_relayer_transactions_total', (samples) => samples.length > 0, 'no mined transaction counted')
    expect(txs.map((sample) => [sample.metric.status, sample.value[1]])).toEqual([['success', '1']])
  })

  test("the indexer's head series follows the chain", async () => {
    const { devnet, queryUntil } = stack
    await devnet.testClient.mine({ blocks: 1 })
    const head = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
    await queryUntil('order_relay_indexer_head_block', (samples) => samples.length === 1 && samples[0]!.value[1] === String(head), `order_relay_indexer_head_block never reached ${head}`)
    await queryUntil('order_relay_indexer_indexed_through', (samples) => samples[0]?.value[1] === String(head), `order_relay_indexer_indexed_through never reached ${head}`)
    const stale = await queryUntil('order_relay_indexer_stale', (samples) => samples.length === 1, 'no stale series')
    expect(stale[0]!.value[1]).toBe('0')
    const getLogs = await queryUntil('order_relay_rpc_requests_total{job="indexer",method="eth_getLogs"}', (samples) => samples.length === 1, 'no eth_getLogs count')
    expect(Number(getLogs[0]!.value[1])).toBeGreaterThan(0)
  })
})
