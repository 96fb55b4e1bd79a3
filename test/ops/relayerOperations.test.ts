// Relayer operations: GET /ready's checks (RPC, chain id, gas floor), GET /status,
// and the Prometheus listener's series after a settled order.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Devnet, devnetAccounts, manifestTokensVariable, startDevnet } from '../../src/devnet/index.ts'
import { createRelayer, readRelayerConfig } from '../../src/relayer/index.ts'
import { freePort, silentLogger } from '../../src/shared/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'

let devnet: Devnet
let relayer: TestRelayer
let metricsUrl: string

beforeAll(async () => {
  devnet = await startDevnet()
  const port = await freePort()
  relayer = await startTestRelayer(devnet, { env: { RELAYER_METRICS_PORT: String(port) } })
  metricsUrl = `http://127.0.0.1:${port}/metrics`
}, 60_000)

afterAll(async () => {
  await relayer?.stop()
  await devnet?.stop()
}, 30_000)

/** A relayer app (not listening) whose config differs from the devnet's in `env`/`overrides`. */
function appWith(env: Record<string, string>, overrides: Parameters<typeof readRelayerConfig>[1] = {}) {
  const config = readRelayerConfig(
    {
      RELAYER_PK: devnetAccounts.relayer.privateKey,
      RELAYER_CHAIN_ID: String(devnet.chainId),
      RELAYER_RPC_URL: devnet.rpcUrl,
      RELAYER_BROKER: devnet.manifest.contracts.broker,
      ...manifestTokensVariable(devnet.manifest),
      // Never the default journal under the repository's .order-relay/.
      RELAYER_DB: ':memory:',
      ...env,
    },
    { host: '127.0.0.1', port: 0, ...overrides },
  )
  return createRelayer(config, { logger: silentLogger, version: 'test' })
}

async function ready(app: { request: (path: string) => Response | Promise<Response> }) {
  const response = await app.request('/ready')
  return { status: response.status, body: (await response.json()) as { ready: boolean; reason?: string; checks: Array<{ name: string; ok: boolean; reason?: string }> } }
}

describe('GET /ready', () => {
  test('200 with every check ok on a funded key at the right chain', async () => {
    const response = await fetch(`${relayer.url}/ready`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      ready: true,
      checks: [
        { name: 'rpc', ok: true },
        { name: 'chain', ok: true },
        { name: 'balance', ok: true },
        { name: 'journal', ok: true },
        { name: 'key', ok: true },
        { name: 'spending', ok: true },
      ],
    })
  })

  test('503 naming the RPC while it does not answer', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`
    const unreachable = appWith({ RELAYER_RPC_URL: closed })
    const { status, body } = await ready(unreachable.app)
    expect(status).toBe(503)
    expect(body.ready).toBe(false)
    expect(body.reason).toBe("the relayer's RPC does not answer: check RELAYER_RPC_URL and the node")
    expect(body.checks.map((check) => [check.name, check.ok])).toEqual([
      ['rpc', false],
      ['chain', false],
      ['balance', false],
      ['journal', true],
      ['key', true],
      ['spending', true],
    ])
    expect(JSON.stringify(body)).not.toContain(closed)
    const metrics = await unreachable.operations.registry.metrics()
    expect(metrics).toContain('order_relay_rpc_errors_total{method="eth_chainId"} 1')
    expect(metrics).toContain('order_relay_rpc_errors_total{method="eth_getBalance"} 1')
  })

  test('the journal is a readiness check and feeds the pending and nonce gauges', async () => {
    const relayer = appWith({})
    expect((await ready(relayer.app)).body.checks.map((check) => check.name)).toEqual(['rpc', 'chain', 'balance', 'journal', 'key', 'spending'])
    let metrics = await relayer.operations.registry.metrics()
    expect(metrics).toContain('order_relay_relayer_pending_transactions 0')
    expect(metrics).toContain('order_relay_relayer_nonce_gap 0')
    // A journal that can no longer be read makes the relayer unready (once the 1 s readiness cache expires).
    relayer.context.journal.close()
    const deadline = Date.now() + 10_000
    let answer = await ready(relayer.app)
    while (answer.status !== 503 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      answer = await ready(relayer.app)
    }
    expect({ status: answer.status, reason: answer.body.reason?.replace(/\(.*\)/, '(…)') }).toEqual({
      status: 503,
      reason: 'the journal :memory: cannot be read (…); check the disk and restart the relayer',
    })
    metrics = await relayer.operations.registry.metrics()
    expect(metrics).toContain('order_relay_relayer_pending_transactions')
  })

  test('503 when the node serves another chain', async () => {
    const { status, body } = await ready(appWith({ RELAYER_CHAIN_ID: '46630' }).app)
    expect(status).toBe(503)
    expect(body.reason).toBe(`the RPC serves chain ${devnet.chainId}, not RELAYER_CHAIN_ID 46630: point RELAYER_RPC_URL at a node of chain 46630`)
    expect(body.checks.map((check) => check.ok)).toEqual([true, false, true, true, true, true])
  })

  test('503 when the balance is under the gas floor', async () => {
    const balance = await devnet.publicClient.getBalance({ address: devnetAccounts.relayer.address })
    const floor = balance + 1n
    const { status, body } = await ready(appWith({ RELAYER_GAS_FLOOR_WEI: String(floor) }).app)
    expect(status).toBe(503)
    expect(body.reason).toStartWith("the gas key's balance ")
    expect(body.reason).toEndWith(`wei is below the floor ${floor} wei (RELAYER_GAS_FLOOR_WEI): send native gas to ${devnetAccounts.relayer.address}`)
    expect(body.checks.map((check) => check.ok)).toEqual([true, true, false, true, true, true])
  })
})

describe('metrics and /status after a settled order', () => {
  test('the listener serves the relayer series; /status counts the order', async () => {
    const settled = await relayer.post(await signed(devnet, allocationOrder(devnet)))
    expect(settled.status).toBe(200)
    const refused = await relayer.post({ nope: true })
    expect(refused.status).toBe(400)

    // The gas counters read the tx's receipt after its answer went out (the receipt watcher's gasReceipts).
    await waitFor('the mined tx counted by the gas counters', async () => (await (await fetch(metricsUrl)).text()).includes('order_relay_relayer_transactions_total{status="success"} 1'))
    const response = await fetch(metricsUrl)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith('text/plain; version=0.0.4')
    const text = await response.text()
    expect(text).toContain('order_relay_relayer_http_requests_total{route="/broker",status="200",code="OK"} 1')
    expect(text).toContain('order_relay_relayer_http_requests_total{route="/broker",status="400",code="MALFORMED_ORDER"} 1')
    expect(text).toContain('order_relay_relayer_settlement_duration_seconds_count 1')
    expect(text).toContain('order_relay_relayer_transactions_total{status="success"} 1')
    expect(text).toMatch(/order_relay_relayer_gas_used_total\{status="success"\} [1-9]\d+/)
    expect(text).toMatch(/order_relay_relayer_gas_spent_wei_total\{status="success"\} [1-9]/)
    expect(text).toMatch(/order_relay_rpc_requests_total\{method="eth_sendRawTransaction"\} 1\n/)
    expect(text).toMatch(/order_relay_relayer_balance_wei [1-9]/)
    expect(text).toContain('order_relay_relayer_gas_floor_wei 1000000000000000')
    expect(text).toContain('order_relay_relayer_http_requests_in_flight 0')
    // No reverted tx from the key in this test (money safety).
    expect(text).not.toContain('order_relay_relayer_transactions_total{status="reverted"}')
    expect((await fetch(metricsUrl.replace('/metrics', '/other'))).status).toBe(404)

    const status = (await (await fetch(`${relayer.url}/status`)).json()) as Record<string, unknown>
    expect(status).toMatchObject({
      address: devnetAccounts.relayer.address,
      chainId: devnet.chainId,
      gasFloorWei: '1000000000000000',
      feeFloorBps: 0,
      ordersPerMinute: { OK: 1, MALFORMED_ORDER: 1 },
      inflight: 0,
      nonceGap: 0,
      pendingTransactions: 0,
    })
    expect((status.latencySeconds as { count: number }).count).toBe(1)
    const page = await fetch(`${relayer.url}/`)
    expect(page.headers.get('content-type')).toStartWith('text/html')
    expect(await page.text()).toContain('<title>order-relay relayer</title>')
  })

  test('metrics are off unless RELAYER_METRICS_PORT is set; the host without the port is an error', () => {
    expect(relayer.config.metrics?.host).toBe('127.0.0.1')
    const base = { RELAYER_PK: devnetAccounts.relayer.privateKey, RELAYER_CHAIN_ID: '421614', RELAYER_BROKER: devnet.manifest.contracts.broker, RELAYER_RPC_URL: devnet.rpcUrl }
    expect(readRelayerConfig(base).metrics).toBeUndefined()
    expect(readRelayerConfig({ ...base, RELAYER_METRICS_PORT: '9464', RELAYER_METRICS_HOST: '0.0.0.0' }).metrics).toEqual({ host: '0.0.0.0', port: 9464 })
    expect(() => readRelayerConfig({ ...base, RELAYER_METRICS_HOST: '0.0.0.0' })).toThrow('RELAYER_METRICS_HOST is set but RELAYER_METRICS_PORT is not')
  })
})
