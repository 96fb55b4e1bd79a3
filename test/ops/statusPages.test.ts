// The status pages in a real browser (headless Chromium from Debian, driven by
// playwright-core): each page loads from the executable's own server, shows live
// numbers, and a number changes after an order settles (relayer) or a block with
// registry events is indexed (indexer). Screenshots go to test-output/.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import type { Browser, Page } from 'playwright-core'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { startTestIndexer, type TestIndexer } from '../indexer/startTestIndexer.ts'
import { runRegistryFlow } from '../indexer/registryFlow.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { chromiumPath, hasChromium, launchChromium } from '../helpers/chromium.ts'

if (!hasChromium) {
  console.log(`test/ops/statusPages.test.ts: skipping the status page checks: ${chromiumPath} is absent (install Debian's package: apt-get install -y chromium)`)
}
const outputDir = 'test-output/ops'

let devnet: Devnet
let relayer: TestRelayer
let indexer: TestIndexer
let browser: Browser

beforeAll(async () => {
  if (!hasChromium) return
  mkdirSync(outputDir, { recursive: true })
  devnet = await startDevnet()
  relayer = await startTestRelayer(devnet)
  indexer = await startTestIndexer(devnet, { loop: true })
  browser = await launchChromium()
}, 90_000)

afterAll(async () => {
  await browser?.close()
  await relayer?.stop()
  await indexer?.stop()
  await devnet?.stop()
}, 30_000)

/** Waits until the element's text satisfies `ok`, failing with `message` after 15 s. */
async function waitForText(page: Page, selector: string, ok: (text: string) => boolean, message: string): Promise<string> {
  const deadline = Date.now() + 15_000
  for (;;) {
    const text = (await page.textContent(selector)) ?? ''
    if (ok(text)) return text
    if (Date.now() > deadline) throw new Error(`${message} (${selector} still shows ${JSON.stringify(text)})`)
    await page.waitForTimeout(100)
  }
}

describe.skipIf(!hasChromium)('status pages', () => {
  test('relayer: GET / shows the key, its signer and chain, and the settled count rises after an order settles', async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 640 } })
    const failures: string[] = []
    page.on('pageerror', (error) => failures.push(String(error)))
    page.on('requestfailed', (request) => failures.push(request.url()))
    await page.goto(`${relayer.url}/`)
    expect(await page.title()).toBe('order-relay relayer')
    await waitForText(page, '#address', (text) => text === relayer.relayer.address, 'the page never showed the gas address')
    await waitForText(page, '#signer', (text) => text === 'signed by private-key · RELAYER_PK', "the page never showed the gas key's signer")
    await waitForText(page, '#balance', (text) => text.endsWith(' ETH'), 'the page never showed the balance')
    expect(await page.textContent('#settled')).toBe('0')
    expect(await page.textContent('#feeFloor')).toBe('0 bps')

    const answer = await relayer.post(await signed(devnet, allocationOrder(devnet)))
    expect(answer.status).toBe(200)
    await waitForText(page, '#settled', (text) => text === '1', 'the settled count did not rise after the order settled')
    await waitForText(page, '#latency', (text) => text.includes('orders1'), 'the latency table did not count the order')
    expect(await page.textContent('#identity')).toStartWith(`chain ${devnet.chainId} · version test`)
    await page.screenshot({ path: `${outputDir}/relayer-status.png`, fullPage: true })
    expect(failures).toEqual([])
    await page.close()
  })

  test('indexer: GET / follows the head and counts the new events; other unknown paths stay 404', async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 640 } })
    const failures: string[] = []
    page.on('pageerror', (error) => failures.push(String(error)))
    await page.goto(`${indexer.url}/`)
    expect(await page.title()).toBe('order-relay indexer')
    const before = await waitForText(page, '#indexed', (text) => /^\d+$/.test(text), 'the page never showed indexedThrough')
    await waitForText(page, '#stale', (text) => text === 'fresh', 'the page never showed fresh')

    await runRegistryFlow(devnet, 'status page')
    await waitForText(page, '#indexed', (text) => /^\d+$/.test(text) && BigInt(text) > BigInt(before), 'indexedThrough did not move after new blocks')
    await waitForText(page, '#kinds', (text) => text.includes('LienRecorded'), 'the recent events did not count LienRecorded')
    expect(await page.textContent('#reorg')).toBe('none since start')
    await page.screenshot({ path: `${outputDir}/indexer-status.png`, fullPage: true })
    expect(failures).toEqual([])
    await page.close()

    expect((await indexer.get('/nothing-here')).status).toBe(404)
    expect((await indexer.get('/nothing-here')).text).toBe('not found')
  })
})
