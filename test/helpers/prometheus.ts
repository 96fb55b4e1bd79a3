// A real Prometheus server (Debian's package) scraping a devnet relayer's and indexer's
// metrics listeners every second, for the tests that read the series back through its
// HTTP query API (test/ops/prometheus.test.ts, test/ops/grafanaDashboard.test.ts).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { startTestIndexer, type TestIndexer } from '../indexer/startTestIndexer.ts'
import { watchOutput } from './processes.ts'
import { waitFor } from './waitFor.ts'
import { startTestRelayer, type TestRelayer } from './relayer.ts'

export const prometheusPath = '/usr/bin/prometheus'
export const hasPrometheus = existsSync(prometheusPath)

/** The line a test file logs when it skips for want of Prometheus. */
export const prometheusMissing = (testFile: string) =>
  `${testFile}: skipping: ${prometheusPath} is absent (install Debian's package: apt-get install -y prometheus)`

export type Sample = { metric: Record<string, string>; value: [number, string] }

export type ScrapedDevnet = Awaited<ReturnType<typeof startScrapedDevnet>>

/**
 * A devnet, a relayer and a looping indexer over it with their metrics listeners on free
 * ports, and Prometheus scraping both every second as the jobs `relayer` and `indexer`.
 * `stop` ends all four and removes Prometheus's data.
 *
 * @example
 * const stack = await startScrapedDevnet()
 * await stack.queryUntil('up', (samples) => samples.length === 2, 'targets never came up')
 * await stack.stop()
 */
export async function startScrapedDevnet() {
  const devnet: Devnet = await startDevnet()
  const [relayerMetrics, indexerMetrics, prometheusPort] = [await freePort(), await freePort(), await freePort()]
  const relayer: TestRelayer = await startTestRelayer(devnet, { env: { RELAYER_METRICS_PORT: String(relayerMetrics) } })
  const indexer: TestIndexer = await startTestIndexer(devnet, { loop: true, overrides: { metrics: { host: '127.0.0.1', port: indexerMetrics } } })

  const dataDir = mkdtempSync(join(tmpdir(), 'order-relay-prometheus-'))
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
  const url = `http://127.0.0.1:${prometheusPort}`
  const prometheus = Bun.spawn(
    [prometheusPath, `--config.file=${config}`, `--storage.tsdb.path=${join(dataDir, 'data')}`, `--web.listen-address=127.0.0.1:${prometheusPort}`],
    { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' },
  )
  const stop = async () => {
    prometheus.kill('SIGTERM')
    await prometheus.exited
    await relayer.stop()
    await indexer.stop()
    await devnet.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    await watchOutput(prometheus).waitFor(/Server is ready to receive web requests/, 60_000)
  } catch (error) {
    await stop()
    throw error
  }

  /** One instant query through `GET /api/v1/query`: Prometheus's whole answer. */
  async function query(expr: string): Promise<{ status: string; data?: { resultType: string; result: Sample[] }; error?: string }> {
    const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`)
    return (await response.json()) as { status: string; data?: { resultType: string; result: Sample[] }; error?: string }
  }

  /** Runs an instant query until `ok` holds for its result, failing with `message` after 30 s. */
  async function queryUntil(expr: string, ok: (samples: Sample[]) => boolean, message: string): Promise<Sample[]> {
    let answer: Awaited<ReturnType<typeof query>> | undefined
    const holds = () => answer?.status === 'success' && answer.data !== undefined && ok(answer.data.result)
    try {
      await waitFor(message, async () => {
        answer = await query(expr)
        return holds()
      }, 30_000, 250)
    } catch {
      throw new Error(`${message}; last answer: ${JSON.stringify(answer)}`)
    }
    return answer!.data!.result
  }

  return {
    devnet,
    relayer,
    indexer,
    url,
    query,
    queryUntil,
    stop,
  }
}
