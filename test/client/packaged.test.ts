// The package as users get it (docs/client.md): `npm pack` runs prepack (the library
// build), the tarball is installed into a throw-away project (dependencies from the
// npm registry/cache), and then
// - Node 20 (not Bun) runs docs/client.md's worked example (test/client/package/order.mjs):
//   it imports the built `order-relay/client` and `order-relay/wire`, signs an order and
//   settles it through a relayer on a devnet;
// - tsc type-checks a module against the published declarations;
// - bun's bundler builds a page from the installed package, and headless Chromium
//   (Debian's /usr/bin/chromium via playwright-core) loads it from another origin: it
//   reads `/info`, signs with a viem local account and posts `/broker`.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { freshNonce } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { fixtures, installPackedProject, repo, run } from './support/packedProject.ts'
import { chromiumPath, hasChromium, launchChromium } from '../helpers/chromium.ts'

if (!hasChromium) {
  console.log(`test/client/packaged.test.ts: skipping the browser page: ${chromiumPath} is absent (install Debian's package: apt-get install -y chromium)`)
}

let work: string
let project: string
let devnet: Devnet
let relayer: TestRelayer
let browser: Browser | undefined
let pageServer: ReturnType<typeof Bun.serve> | undefined
let pageOrigin: string
/** The page's script, once the browser test has bundled it. */
let bundle = ''
let relayerNonceBefore = 0
const html = '<!doctype html><title>order-relay dApp</title><script type="module" src="/page.js"></script>'

/**
 * Runs a command to completion (asynchronously: the relayer it talks to runs in this
 * process) and returns its stdout; throws with its output when it fails.
 */

/** What every order in this file needs to know about the devnet and the relayer. */
const orderInput = () => ({
  consumerKey: devnetAccounts.consumer.privateKey,
  rpcUrl: devnet.rpcUrl,
  relayerUrl: relayer.url,
  chainId: devnet.chainId,
  broker: devnet.manifest.contracts.broker,
  allocationAdapter: devnet.manifest.contracts.allocationAdapter,
  payToken: devnet.manifest.contracts.payToken,
  payee: devnetAccounts.payee.address,
  nonce: freshNonce().toString(),
})

beforeAll(async () => {
  const installed = await installPackedProject('consumer-app', ['order.mjs', 'check.ts', 'page.mjs'])
  work = installed.work
  project = installed.project
  pageServer = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request) =>
      new URL(request.url).pathname === '/page.js'
        ? new Response(bundle, { headers: { 'content-type': 'text/javascript' } })
        : new Response(html, { headers: { 'content-type': 'text/html' } }),
  })
  pageOrigin = `http://127.0.0.1:${pageServer.port}`
  devnet = await startDevnet()
  relayerNonceBefore = await devnet.publicClient.getTransactionCount({ address: devnetAccounts.relayer.address })
  // The page's origin may POST /broker (the hardened edge's RELAYER_CORS_ORIGINS); Node sends no Origin.
  relayer = await startTestRelayer(devnet, { env: { RELAYER_CORS_ORIGINS: pageOrigin } })
}, 240_000)

afterAll(async () => {
  await browser?.close()
  pageServer?.stop(true)
  await relayer?.stop()
  await devnet?.stop()
  if (work) await rm(work, { recursive: true, force: true })
}, 60_000)

describe('the packed package', () => {
  test('installs with only its runtime dependencies and no TypeScript sources in the import path', async () => {
    const installed = await Bun.file(join(project, 'node_modules/order-relay/package.json')).json()
    expect(installed.exports['./client'].import).toBe('./dist/lib/client/index.js')
    expect(installed.exports['./client'].types).toBe('./dist/lib/client/index.d.ts')
    expect(Object.keys(installed.dependencies).sort()).toEqual(['hash-wasm', 'valibot', 'viem'])
    expect(existsSync(join(project, 'node_modules/order-relay/dist/lib/wire/index.js'))).toBe(true)
    expect(existsSync(join(project, 'node_modules/prool'))).toBe(false)
  })

  test("Node 20 runs docs/client.md's worked example against the installed package: one order settles", async () => {
    expect(await run(['node', '--version'], project)).toMatch(/^v20\./)
    await writeFile(join(project, 'manifest.json'), JSON.stringify({ ...devnet.manifest, relayerUrl: relayer.url }))
    const output = await run(['node', 'order.mjs', 'manifest.json'], project)
    const result = JSON.parse(output.trim().split('\n').at(-1) ?? '{}')
    expect(result.code).toBeUndefined()
    expect(result.feeCollected).toBe('50000') // 50 bps of 10 USDC
    expect([result.receipt.adapter, result.receipt.event, result.receipt.fields.vaultId]).toEqual(['allocation', 'AllocationGranted', '1'])
    const receipt = await devnet.publicClient.getTransactionReceipt({ hash: result.txHash })
    expect([receipt.status, receipt.from]).toEqual(['success', devnetAccounts.relayer.address.toLowerCase() as `0x${string}`])
  }, 60_000)

  test('docs/client.md shows the program the test runs, unchanged', async () => {
    const page = await Bun.file(join(repo, 'docs/client.md')).text()
    const shown = page.match(/## A worked example[\s\S]*?```js\n([\s\S]*?)```/)?.[1]
    expect(shown).toBe(await Bun.file(join(fixtures, 'order.mjs')).text())
  })

  test('the published declarations type-check a consumer module (tsc, module nodenext)', async () => {
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: [], lib: ['es2023', 'dom'] }, files: ['check.ts'] }),
    )
    // Throws with tsc's diagnostics when a declaration does not resolve or type-check.
    expect(await run([join(repo, 'node_modules/.bin/tsc'), '-p', 'tsconfig.json'], project)).toBe('')
  }, 60_000)

  test.skipIf(!hasChromium)(
    'a page bundled from the package reads /info cross-origin, signs with a viem local account and posts /broker in Chromium',
    async () => {
      const built = await Bun.build({ entrypoints: [join(project, 'page.mjs')], target: 'browser', format: 'esm' })
      if (!built.success) throw new Error(`bun build of the page failed: ${built.logs.join('\n')}`)
      bundle = (await built.outputs[0]?.text()) ?? ''
      // The bundler took the built JavaScript (the `import` condition), not the sources.
      expect(bundle).toContain('node_modules/order-relay/dist/lib/client/createRelayClient.js')
      const before = relayer.logger.lines.length
      browser = await launchChromium()
      const page = await browser.newPage()
      const errors: string[] = []
      page.on('pageerror', (error) => errors.push(String(error)))
      await page.goto(`${pageOrigin}/`)
      await page.waitForFunction(() => typeof (window as unknown as { relayFromPage?: unknown }).relayFromPage === 'function', undefined, { timeout: 20_000 })
      const input = orderInput()
      const result = await page.evaluate(
        (pageInput) => (window as unknown as { relayFromPage: (i: unknown) => Promise<Record<string, unknown>> }).relayFromPage(pageInput),
        input,
      )
      expect(errors).toEqual([])
      expect(result.info).toMatchObject({ feeFloorBps: 0, supportedChainIds: [devnet.chainId], relayer: devnetAccounts.relayer.address })
      expect([result.ok, result.orderHash, result.event]).toEqual([true, result.requestOrderHash, 'AllocationGranted'])
      const receipt = await devnet.publicClient.getTransactionReceipt({ hash: result.txHash as `0x${string}` })
      expect(receipt.status).toBe('success')
      expect(relayer.logger.lines.slice(before).filter((line) => /^(GET|POST|OPTIONS) \//.test(line))).toEqual([
        'GET /info 200 -',
        'OPTIONS /broker 204 -',
        'POST /broker 200 OK',
      ])
    },
    120_000,
  )

  test('money safety: one transaction per order sent, each settled once', async () => {
    const sent = (await devnet.publicClient.getTransactionCount({ address: devnetAccounts.relayer.address })) - relayerNonceBefore
    expect(sent).toBe(hasChromium ? 2 : 1)
    expect(relayer.logger.lines.filter((line) => line.startsWith('POST /broker'))).toEqual(hasChromium ? ['POST /broker 200 OK', 'POST /broker 200 OK'] : ['POST /broker 200 OK'])
  })
})
