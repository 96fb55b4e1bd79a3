// CORS for public reads (docs/api.md), in headless Chromium (Debian's
// /usr/bin/chromium via playwright-core): a page on another origin reads every public
// GET of a relayer started WITHOUT the hardened edge, and of an indexer, including a
// preflighted GET; its POST /broker is still refused (no origin is listed).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { startTestIndexer, type TestIndexer } from '../indexer/startTestIndexer.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { chromiumPath, hasChromium, launchChromium } from '../helpers/chromium.ts'

if (!hasChromium) {
  console.log(`test/client/publicReads.browser.test.ts: skipping: ${chromiumPath} is absent (install Debian's package: apt-get install -y chromium)`)
}

/**
 * What the page saw: status, body (JSON or text) and the exposed ETag; or the fetch
 * rejection (what a browser reports when CORS does not grant the read).
 */
type Seen = { status: number; body: unknown; etag: string | null } | { error: string }

let devnet: Devnet
let relayer: TestRelayer
let indexer: TestIndexer
let browser: Browser
let page: Page
let pageServer: ReturnType<typeof Bun.serve> | undefined

beforeAll(async () => {
  if (!hasChromium) return
  devnet = await startDevnet()
  relayer = await startTestRelayer(devnet)
  indexer = await startTestIndexer(devnet)
  await indexer.sync.syncOnce()
  pageServer = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () => new Response('<!doctype html><title>a dApp</title>', { headers: { 'content-type': 'text/html' } }),
  })
  browser = await launchChromium()
  page = await browser.newPage()
  await page.goto(`http://127.0.0.1:${pageServer.port}/`)
}, 90_000)

afterAll(async () => {
  await browser?.close()
  pageServer?.stop(true)
  await indexer?.stop()
  await relayer?.stop()
  await devnet?.stop()
}, 60_000)

/** fetch from inside the page, as its own script would. */
function pageFetch(url: string, init?: { method?: string; headers?: Record<string, string>; body?: string }): Promise<Seen> {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, init)
        const text = await response.text()
        let body: unknown = text
        try {
          body = JSON.parse(text)
        } catch {}
        return { status: response.status, body, etag: response.headers.get('etag') }
      } catch (error) {
        return { error: String(error) }
      }
    },
    { url, init },
  )
}

describe('public reads from another origin (no hardened edge)', () => {
  test.skipIf(!hasChromium)('GET /info, /api/openapi.json, /broker/{orderHash}; a preflighted GET; POST /broker still refused', async () => {
    const info = await pageFetch(`${relayer.url}/info`)
    expect(info).toEqual({
      status: 200,
      body: expect.objectContaining({ feeFloorBps: 0, supportedChainIds: [devnet.chainId], relayer: relayer.relayer.address }),
      etag: null,
    })

    const openapi = await pageFetch(`${relayer.url}/api/openapi.json`)
    if ('error' in openapi) throw new Error(`GET /api/openapi.json was not readable: ${openapi.error}`)
    expect([openapi.status, (openapi.body as { openapi: string }).openapi]).toEqual([200, '3.1.0'])

    // The order-status route is public: an unknown order's answer is readable too.
    const unknownOrder = await pageFetch(`${relayer.url}/broker/0x${'00'.repeat(32)}`)
    if ('error' in unknownOrder) throw new Error(`GET /broker/{orderHash} was not readable: ${unknownOrder.error}`)
    expect([unknownOrder.status, (unknownOrder.body as { status: string }).status]).toEqual([200, 'unknown'])

    // A non-safelisted request header makes the browser preflight first.
    const preflighted = await pageFetch(`${relayer.url}/info`, { headers: { 'x-dapp': 'probe' } })
    expect(preflighted).toEqual(info)

    const request = await signed(devnet, allocationOrder(devnet))
    const post = await pageFetch(`${relayer.url}/broker`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) })
    expect(post).toEqual({ error: 'TypeError: Failed to fetch' })

    expect(relayer.logger.lines.filter((line) => /^(GET|POST|OPTIONS) \//.test(line))).toEqual([
      'GET /info 200 -',
      'GET /api/openapi.json 200 -',
      'GET /broker/0x0000000000000000000000000000000000000000000000000000000000000000 200 OK',
      'OPTIONS /info 204 -',
      'GET /info 200 -',
      // Refused as CORS expects (204 without Access-Control-Allow-Origin): no origin is listed without the edge.
      'OPTIONS /broker 204 -',
    ])
  }, 60_000)

  test.skipIf(!hasChromium)("the indexer's GET /health and GET /activity (its ETag exposed)", async () => {
    expect(await pageFetch(`${indexer.url}/health`)).toEqual({ status: 200, body: 'ok', etag: null })
    const activity = await pageFetch(`${indexer.url}/activity`, { headers: { 'x-dapp': 'probe' } })
    if ('error' in activity) throw new Error(`GET /activity was not readable: ${activity.error}`)
    const direct = await indexer.get('/activity')
    expect([activity.status, activity.etag]).toEqual([200, direct.headers.get('etag')])
    expect(activity.body).toEqual(direct.json)
  }, 60_000)
})
