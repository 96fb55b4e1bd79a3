// Operations inside the compiled executable (prom-client and the status pages must
// survive `bun build --compile`): a relayer and an indexer started from the binary
// with LOG_FORMAT=json and metrics listeners serve /metrics, /ready and the pages,
// log only JSON lines, and stop on SIGTERM.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Devnet, devnetAccounts, manifestTokensVariable, startDevnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { watchOutput } from '../helpers/processes.ts'
import { waitFor } from '../helpers/waitFor.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-ops-bin-'))
const exe = join(dir, 'order-relay')
let devnet: Devnet

beforeAll(async () => {
  const build = Bun.spawnSync(['bun', 'scripts/build.ts', '--skip-contracts', '--outfile', exe], { stdout: 'pipe', stderr: 'pipe' })
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`)
  devnet = await startDevnet()
}, 180_000)

afterAll(async () => {
  await devnet?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** Starts a subcommand of the binary from a folder without node_modules; resolves once it listens. */
async function start(command: 'relayer' | 'indexer', env: Record<string, string>) {
  const child = Bun.spawn([exe, command], { cwd: dir, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore', env: { PATH: process.env.PATH ?? '', LOG_FORMAT: 'json', ...env } })
  const output = watchOutput(child)
  try {
    await output.waitFor(/listening on/)
  } catch (error) {
    child.kill('SIGKILL')
    throw error
  }
  return { child, output }
}

test('relayer and indexer from the executable: metrics, /ready, pages, JSON logs', async () => {
  const [relayerPort, relayerMetrics, indexerPort, indexerMetrics] = [await freePort(), await freePort(), await freePort(), await freePort()]
  const { registry, inbox, pool, escrow } = devnet.manifest.contracts
  const relayer = await start('relayer', {
    RELAYER_PK: devnetAccounts.secondRelayer.privateKey,
    RELAYER_CHAIN_ID: String(devnet.chainId),
    RELAYER_RPC_URL: devnet.rpcUrl,
    RELAYER_BROKER: devnet.manifest.contracts.broker,
    ...manifestTokensVariable(devnet.manifest),
    RELAYER_PORT: String(relayerPort),
    RELAYER_METRICS_PORT: String(relayerMetrics),
  })
  const indexer = await start('indexer', {
    INDEXER_CHAIN_ID: String(devnet.chainId),
    INDEXER_RPC_URL: devnet.rpcUrl,
    INDEXER_ADDRESSES: [registry, inbox, pool, escrow].join(','),
    INDEXER_DEPLOYED_AT: devnet.manifest.deployedAt,
    INDEXER_PORT: String(indexerPort),
    INDEXER_METRICS_PORT: String(indexerMetrics),
    INDEXER_POLL_MS: '50',
  })
  try {
    const relayerUrl = `http://127.0.0.1:${relayerPort}`
    expect((await fetch(`${relayerUrl}/ready`)).status).toBe(200)
    const settled = await fetch(`${relayerUrl}/broker`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(await signed(devnet, allocationOrder(devnet))) })
    expect(settled.status).toBe(200)
    // The gas counters read the tx's receipt after its answer went out (the receipt watcher's gasReceipts).
    let relayerText = ''
    await waitFor('the mined tx counted by the gas counters', async () => {
      relayerText = await (await fetch(`http://127.0.0.1:${relayerMetrics}/metrics`)).text()
      return relayerText.includes('order_relay_relayer_transactions_total{status="success"} 1')
    })
    expect(relayerText).toContain('order_relay_relayer_http_requests_total{route="/ready",status="200",code="-"} 1')
    expect(relayerText).toContain('order_relay_relayer_http_requests_total{route="/broker",status="200",code="OK"} 1')
    expect(relayerText).toContain('order_relay_relayer_transactions_total{status="success"} 1')
    expect(await (await fetch(`${relayerUrl}/`)).text()).toContain('<title>order-relay relayer</title>')

    const head = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
    let indexerText = ''
    for (let i = 0; i < 100 && !indexerText.includes(`order_relay_indexer_indexed_through ${head}\n`); i++) {
      indexerText = await (await fetch(`http://127.0.0.1:${indexerMetrics}/metrics`)).text()
      await Bun.sleep(50)
    }
    expect(indexerText).toContain(`order_relay_indexer_head_block ${head}\n`)
    expect(await (await fetch(`http://127.0.0.1:${indexerPort}/`)).text()).toContain('<title>order-relay indexer</title>')
  } finally {
    relayer.child.kill('SIGTERM')
    indexer.child.kill('SIGTERM')
  }
  expect(await relayer.child.exited).toBe(0)
  expect(await indexer.child.exited).toBe(0)
  for (const { output } of [relayer, indexer]) {
    const lines = output.text.trim().split('\n')
    for (const line of lines) expect(Object.keys(JSON.parse(line)).slice(0, 3)).toEqual(['time', 'level', 'message'])
  }
  const access = relayer.output.text.split('\n').filter((line) => line.includes('"path":"/broker"')).map((line) => JSON.parse(line))
  expect(access.map(({ method, path, status, code }) => ({ method, path, status, code }))).toEqual([{ method: 'POST', path: '/broker', status: 200, code: 'OK' }])
  expect(relayer.output.text.toLowerCase()).not.toContain(devnetAccounts.secondRelayer.privateKey.slice(2).toLowerCase())
}, 120_000)
