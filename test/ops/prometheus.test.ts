// A real Prometheus server (Debian's package) scrapes the relayer's and the indexer's
// metrics listeners every second; its HTTP query API then returns the series of a
// settled order and the indexer's head.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { watchOutput } from '../helpers/processes.ts'
import { startTestIndexer, type TestIndexer } from '../indexer/startTestIndexer.ts'

const prometheusPath = '/usr/bin/prometheus'
const hasPrometheus = existsSync(prometheusPath)
if (!hasPrometheus) {
  console.log(`test/ops/prometheus.test.ts: skipping the scrape test: ${prometheusPath} is absent (install Debian's package: apt-get install -y prometheus)`)
}

type Sample = { metric: Record<string, string>; value: [number, string] }

let devnet: Devnet
let relayer: TestRelayer
let indexer: TestIndexer
let prometheus: Subprocess<'ignore', 'pipe', 'pipe'> | undefined
let prometheusUrl: string
let dataDir: string

beforeAll(async () => {
  if (!hasPrometheus) return
  devnet = await startDevnet()
  const [relayerMetrics, indexerMetrics, prometheusPort] = [await freePort(), await freePort(), await freePort()]
  relayer = await startTestRelayer(devnet, { env: { RELAYER_METRICS_PORT: String(relayerMetrics) } })
  indexer = await startTestIndexer(devnet, { loop: true, overrides: { metrics: { host: '127.0.0.1', port: indexerMetrics } } })

  dataDir = mkdtempSync(join(tmpdir(), 'order-relay-prometheus-'))
  const config = join(dataDir, 'prometheus.yml')
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 900ms',
      'scrape_configs:',
      '  - job_name: relayer',
      '    static_configs:',
      `      - targets: ['127.0.0.1:${relayerMetrics}']`,
      '  - job_name: indexer',
      '    static_configs:',
      `      - targets: ['127.0.0.1:${indexerMetrics}']`,
      '',
    ].join('\n'),
  )
  prometheusUrl = `http://127.0.0.1:${prometheusPort}`
  prometheus = Bun.spawn(
    [prometheusPath, `--config.file=${config}`, `--storage.tsdb.path=${join(dataDir, 'data')}`, `--web.listen-address=127.0.0.1:${prometheusPort}`],
    { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' },
  )
  await watchOutput(prometheus).waitFor(/Server is ready to receive web requests/, 60_000)
}, 120_000)

afterAll(async () => {
  if (prometheus) {
    prometheus.kill('SIGTERM')
    await prometheus.exited
  }
  await relayer?.stop()
  await indexer?.stop()
  await devnet?.stop()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
}, 30_000)

/** Runs an instant query until `ok` holds for its result, failing with `message` after 30 s. */
async function queryUntil(query: string, ok: (samples: Sample[]) => boolean, message: string): Promise<Sample[]> {
  const deadline = Date.now() + 30_000
  let last: unknown
  for (;;) {
    const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(query)}`)
    const body = (await response.json()) as { status: string; data?: { result: Sample[] } }
    last = body
    if (body.status === 'success' && body.data && ok(body.data.result)) return body.data.result
    if (Date.now() > deadline) throw new Error(`${message}; last answer: ${JSON.stringify(last)}`)
    await Bun.sleep(250)
  }
}

describe.skipIf(!hasPrometheus)('Prometheus scrapes both listeners', () => {
  test('both targets are up', async () => {
    const up = await queryUntil('up', (samples) => samples.length === 2 && samples.every((s) => s.value[1] === '1'), 'the relayer and indexer targets never came up')
    expect(up.map((sample) => sample.metric.job).sort()).toEqual(['indexer', 'relayer'])
  })

  test('a settled order appears in the relayer series', async () => {
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
