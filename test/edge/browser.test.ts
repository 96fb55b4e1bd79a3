// CORS in a real browser (SPEC.md 4.5 item 4): headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core) loads a page from an allowed origin
// and one from another origin (another port), and each calls the hardened relayer.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { hashOrder } from '../../src/wire/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { chromiumPath, hasChromium, launchChromium } from '../helpers/chromium.ts'

if (!hasChromium) {
  console.log(`test/edge/browser.test.ts: skipping the browser CORS checks: ${chromiumPath} is absent (install Debian's package: apt-get install -y chromium)`)
}

/** What the page saw: the status, the JSON body and Retry-After, or the fetch rejection. */
type Seen = { status: number; body: unknown; retryAfter: string | null } | { error: string }

let devnet: Devnet
let relayer: TestRelayer
let browser: Browser
const pageServers: Array<ReturnType<typeof Bun.serve>> = []

/** A static page on 127.0.0.1: each port is its own origin. */
function servePage() {
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () => new Response('<!doctype html><title>order-relay CORS check</title><p>ok</p>', { headers: { 'content-type': 'text/html' } }),
  })
  pageServers.push(server)
  return { server, origin: `http://127.0.0.1:${server.port}` }
}

async function openPage(origin: string): Promise<Page> {
  const page = await browser.newPage()
  await page.goto(`${origin}/`)
  return page
}

/** Runs fetch inside the page, as the page's own script would. */
function pageFetch(page: Page, url: string, init?: { method: string; headers: Record<string, string>; body: string }): Promise<Seen> {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, init)
        return { status: response.status, body: await response.json(), retryAfter: response.headers.get('retry-after') }
      } catch (error) {
        return { error: String(error) }
      }
    },
    { url, init },
  )
}

const allowedPage = hasChromium ? servePage() : undefined
const otherPage = hasChromium ? servePage() : undefined

beforeAll(async () => {
  if (!hasChromium || !allowedPage) return
  devnet = await startDevnet()
  relayer = await startTestRelayer(devnet, {
    // Three requests per client at once, then nearly nothing: the fourth is refused.
    env: { RELAYER_CORS_ORIGINS: allowedPage.origin, RELAYER_RATE_BURST: '3', RELAYER_RATE_PER_SEC: '0.001' },
  })
  browser = await launchChromium()
}, 90_000)

afterAll(async () => {
  await browser?.close()
  await relayer?.stop()
  await devnet?.stop()
  for (const server of pageServers) server.stop(true)
})

describe('CORS in headless Chromium', () => {
  test.skipIf(!hasChromium)(
    'an allowed origin can POST /broker and read the answer; another origin cannot; both read GET /info',
    async () => {
      if (!allowedPage || !otherPage) throw new Error('unreachable')
      const info = { feeFloorBps: 0, supportedChainIds: [devnet.chainId], relayer: devnetAccounts.relayer.address }
      const postInit = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

      const allowed = await openPage(allowedPage.origin)
      const other = await openPage(otherPage.origin)

      // 1-2: GET /info from both origins.
      expect(await pageFetch(allowed, `${relayer.url}/info`)).toEqual({ status: 200, body: expect.objectContaining(info), retryAfter: null })
      expect(await pageFetch(other, `${relayer.url}/info`)).toEqual({ status: 200, body: expect.objectContaining(info), retryAfter: null })

      // 3: the allowed origin settles an order and reads the RelaySuccess.
      const request = await signed(devnet, allocationOrder(devnet))
      const settled = await pageFetch(allowed, `${relayer.url}/broker`, postInit(request))
      if ('error' in settled) throw new Error(`allowed origin could not POST: ${settled.error}`)
      expect(settled.status).toBe(200)
      const success = settled.body as { ok: boolean; orderHash: string; txHash: `0x${string}` }
      expect([success.ok, success.orderHash]).toEqual([true, hashOrder(request.order)])
      expect((await devnet.publicClient.getTransactionReceipt({ hash: success.txHash })).status).toBe('success')

      // The other origin: the preflight gets no grant, so the browser never sends the POST.
      const refusedRequest = await signed(devnet, allocationOrder(devnet))
      expect(await pageFetch(other, `${relayer.url}/broker`, postInit(refusedRequest))).toEqual({ error: 'TypeError: Failed to fetch' })

      // 4th request of this client: refused by the rate limit, and the allowed page can
      // read the code and Retry-After (exposed to scripts).
      const limited = await pageFetch(allowed, `${relayer.url}/broker`, postInit(refusedRequest))
      if ('error' in limited) throw new Error(`allowed origin could not read the 429: ${limited.error}`)
      expect([limited.status, (limited.body as { code: string }).code]).toEqual([429, 'RATE_LIMITED'])
      expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(900)
      expect(Number(limited.retryAfter)).toBeLessThanOrEqual(1000)

      // What reached the relayer: the other origin's order never did.
      expect(relayer.logger.lines.filter((line) => /^(GET|POST|OPTIONS) \//.test(line))).toEqual([
        'GET /info 200 -',
        'GET /info 200 -',
        'OPTIONS /broker 204 -',
        'POST /broker 200 OK',
        'OPTIONS /broker 204 -',
        'POST /broker 429 RATE_LIMITED',
      ])
    },
    60_000,
  )
})
