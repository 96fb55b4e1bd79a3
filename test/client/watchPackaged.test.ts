// watchActivity and watchOrder as users get them (`npm pack`, installed into a
// throw-away project, as test/client/packaged.test.ts does): Node 20 runs
// test/client/package/watch.mjs against a real indexer and relayer, and headless Chromium
// (Debian's /usr/bin/chromium via playwright-core) runs a page bundled from the installed
// package, beside the browser's own EventSource on the same stream. Both lose their
// connection once (the network between them goes down) and resume with Last-Event-ID:
// every event once, none missed.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import type { ActivityEvent, ActivitySnapshot, BrokerStatus } from '../../src/wire/index.ts'
import { watchOutput } from '../helpers/processes.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { proposeLien, runRegistryFlow } from '../indexer/registryFlow.ts'
import { startTcpProxy } from '../indexer/tcpProxy.ts'
import { startTestIndexer, type TestIndexer } from '../indexer/startTestIndexer.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { installPackedProject, run } from './support/packedProject.ts'
import { chromiumPath, hasChromium, launchChromium } from '../helpers/chromium.ts'

if (!hasChromium) console.log(`test/client/watchPackaged.test.ts: skipping the browser page: ${chromiumPath} is absent (apt-get install -y chromium)`)

let work: string
let project: string
let devnet: Devnet
let indexer: TestIndexer
let relayer: TestRelayer
let browser: Browser | undefined
let pageServer: ReturnType<typeof Bun.serve> | undefined
let bundle = ''
let orderHash: Hex
let orderTx: Hex
let relayerNonceBefore = 0


const served = async () => ((await indexer.get('/activity')).json as ActivitySnapshot).events

beforeAll(async () => {
  const installed = await installPackedProject('watching-app', ['watch.mjs', 'watchPage.mjs'])
  work = installed.work
  project = installed.project
  devnet = await startDevnet()
  await runRegistryFlow(devnet, 'packaged watch')
  indexer = await startTestIndexer(devnet, { loop: true })
  relayer = await startTestRelayer(devnet)
  relayerNonceBefore = await devnet.publicClient.getTransactionCount({ address: devnetAccounts.relayer.address })
  const request = await signed(devnet, allocationOrder(devnet))
  const settled = await relayer.post(request)
  expect(settled.status).toBe(200)
  orderHash = request.orderHash as Hex
  orderTx = settled.body.txHash as Hex
  await waitFor('the indexer to reach the head', async () => (await indexer.get('/ready')).status === 200)
  pageServer = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request) =>
      new URL(request.url).pathname === '/page.js'
        ? new Response(bundle, { headers: { 'content-type': 'text/javascript' } })
        : new Response('<!doctype html><title>watching dApp</title><script type="module" src="/page.js"></script>', { headers: { 'content-type': 'text/html' } }),
  })
}, 240_000)

afterAll(async () => {
  await browser?.close()
  pageServer?.stop(true)
  await relayer?.stop()
  await indexer?.stop()
  await devnet?.stop()
  if (work) await rm(work, { recursive: true, force: true })
}, 60_000)

test("Node 20 follows the activity and an order with the installed package, and resumes after the connection drops", async () => {
  expect(await run(['node', '--version'], project)).toMatch(/^v20\./)
  const path = await startTcpProxy(Number(new URL(indexer.url).port))
  try {
    const before = (await served()).length
    const child = Bun.spawn(
      ['node', 'watch.mjs', JSON.stringify({ indexerUrl: `http://127.0.0.1:${path.port}`, relayerUrl: relayer.url, orderHash, replayed: before, total: before + 1 })],
      { cwd: project, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' },
    )
    const output = watchOutput(child)
    await output.waitFor(new RegExp(`replayed ${before}`), 30_000)
    await path.down()
    const missed = await proposeLien(devnet, 'missed by node')
    await path.up()
    expect(await child.exited).toBe(0)
    const result = JSON.parse(output.text.trim().split('\n').at(-1)!) as { events: ActivityEvent[]; removed: unknown[]; errors: { code: string; fatal: boolean }[]; statuses: BrokerStatus[] }
    expect(result.events).toEqual(await served())
    expect(result.events.at(-1)?.transactionHash).toBe(missed.receipt.transactionHash)
    expect(result.removed).toEqual([])
    expect(result.errors.length).toBeGreaterThan(0)
    expect(result.errors.every((error) => error.code === 'NETWORK' && !error.fatal)).toBe(true)
    expect(result.statuses.map((status) => [status.status, status.txHash])).toEqual([['settled', orderTx]])
  } finally {
    path.stop()
  }
}, 90_000)

test.skipIf(!hasChromium)(
  'in Chromium, cross-origin: the bundled watchActivity and watchOrder, and the browser’s own EventSource, follow the stream and resume after the connection drops',
  async () => {
    const built = await Bun.build({ entrypoints: [join(project, 'watchPage.mjs')], target: 'browser', format: 'esm' })
    if (!built.success) throw new Error(`bun build of the page failed: ${built.logs.join('\n')}`)
    bundle = (await built.outputs[0]?.text()) ?? ''
    expect(bundle).toContain('node_modules/order-relay/dist/lib/client/watchActivity.js')
    const path = await startTcpProxy(Number(new URL(indexer.url).port))
    try {
      browser = await launchChromium()
      const page = await browser.newPage()
      const errors: string[] = []
      page.on('pageerror', (error) => errors.push(String(error)))
      await page.goto(`http://127.0.0.1:${pageServer!.port}/`)
      await page.waitForFunction(() => typeof (window as unknown as { watchFromPage?: unknown }).watchFromPage === 'function', undefined, { timeout: 20_000 })
      await page.evaluate((input) => (window as unknown as { watchFromPage: (i: unknown) => void }).watchFromPage(input), {
        indexerUrl: `http://127.0.0.1:${path.port}`,
        relayerUrl: relayer.url,
        orderHash,
      })
      type Seen = { held: ActivityEvent[]; errors: string[]; statuses: BrokerStatus[]; native: ActivityEvent[]; nativeIds: string[]; nativeErrors: number }
      const seen = () => page.evaluate(() => (window as unknown as { watched: unknown }).watched) as Promise<Seen>
      const count = (await served()).length
      await waitFor('both to replay the activity', async () => {
        const now = await seen()
        return now.held.length === count && now.native.length === count
      })
      await path.down()
      const missed = await proposeLien(devnet, 'missed by the browser')
      await waitFor('both to notice the drop', async () => {
        const now = await seen()
        return now.errors.includes('NETWORK') && now.nativeErrors > 0
      })
      await path.up()
      await waitFor('the indexer to index the missed event', async () => (await served()).some((event) => event.transactionHash === missed.receipt.transactionHash))
      const expected = await served()
      await waitFor('both to resume with the missed event', async () => {
        const now = await seen()
        return now.held.length === expected.length && now.native.length === expected.length
      }, 30_000)
      const now = await seen()
      expect(now.held).toEqual(expected)
      expect(now.native).toEqual(expected)
      expect(now.native.at(-1)?.transactionHash).toBe(missed.receipt.transactionHash)
      // The browser resumed on its own with Last-Event-ID: the ids it got only grow.
      const seqs = now.nativeIds.map((id) => Number(id.split('.')[0]))
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
      expect(now.statuses.map((status) => [status.status, status.txHash])).toEqual([['settled', orderTx]])
      expect(errors).toEqual([])
    } finally {
      path.stop()
    }
  },
  120_000,
)

test('money safety: one transaction for the one order, settled', async () => {
  expect((await devnet.publicClient.getTransactionCount({ address: devnetAccounts.relayer.address })) - relayerNonceBefore).toBe(1)
  expect((await devnet.publicClient.getTransactionReceipt({ hash: orderTx })).status).toBe('success')
})
