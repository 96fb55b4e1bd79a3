// The access log (SPEC.md 4.3): one `METHOD PATH STATUS CODE` line per request and
// nothing else: no query string, no client address, no header, no body. Start-up
// prints the gas address, never the key.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { allocationOrder, signed, vaultParams } from '../helpers/orders.ts'
import { createExposure } from './support/exposure.ts'
import { accessLinePattern, startWatchedRelayer, type WatchedRelayer } from './support/watchedRelayer.ts'

let devnet: Devnet
let relayer: WatchedRelayer
const exposure = createExposure()
const key = devnetAccounts.relayer.privateKey

beforeAll(async () => {
  devnet = await startDevnet()
  relayer = await startWatchedRelayer(devnet, exposure)
}, 60_000)
afterAll(async () => {
  await relayer?.stop()
  await devnet?.stop()
})

test('exactly one line per request, in order, and nothing else', async () => {
  const good = await signed(devnet, allocationOrder(devnet))
  const soldOut = await signed(devnet, allocationOrder(devnet, { params: vaultParams(7n) }))
  exposure.request(good)
  exposure.request(soldOut)
  // Things a careless log would print: a key in the query, in headers, in the body.
  const noisy = { 'x-forwarded-for': '203.0.113.9', 'user-agent': `agent/${key}`, 'x-debug': key.slice(2) }

  await relayer.request('GET', '/info')
  await relayer.request('GET', `/info?key=${key}&bare=${key.slice(2)}`, { headers: noisy })
  await relayer.request('GET', '/api/openapi.json')
  await relayer.request('GET', '/nope')
  await relayer.request('HEAD', '/info')
  await relayer.post(good, { headers: noisy })
  await relayer.post(undefined, { raw: `{"order": "${key}"` })
  await relayer.post({ ...good, orderHash: `0x${key.slice(2)}` })
  await relayer.post({ ...good, order: { ...good.order, secret: key } })
  await relayer.post(soldOut)
  await relayer.request('POST', '/info', { headers: { 'content-type': 'application/json' }, body: '{}' })
  await relayer.request('GET', '/broker')
  await relayer.request('DELETE', '/broker')
  await relayer.request('OPTIONS', '/broker')

  const lines = relayer.logger.lines
  expect(lines[0]).toBe(
    `relayer ${devnetAccounts.relayer.address} on chain ${devnet.chainId}, broker ${devnet.manifest.contracts.broker}, listening on ${relayer.url}`,
  )
  expect(lines[1]).toBe('gas key: local key RELAYER_PK')
  expect(lines[2]).toBe(
    `pay tokens accepted: ${devnet.manifest.contracts.payToken} (USDC) at 0.01 native per token (fixed); an order's fee must be worth its gas plus 1000 bps (RELAYER_MIN_MARGIN_BPS)`,
  )
  expect(lines[3]).toBe('hardened edge: off (set RELAYER_HARDENED=1 to enable)')
  expect(lines.slice(4)).toEqual([
    'GET /info 200 -',
    'GET /info 200 -',
    'GET /api/openapi.json 200 -',
    'GET /nope 404 NOT_FOUND',
    'HEAD /info 200 -',
    'POST /broker 200 OK',
    'POST /broker 400 MALFORMED_ORDER',
    'POST /broker 400 ORDERHASH_MISMATCH',
    'POST /broker 400 MALFORMED_ORDER',
    'POST /broker 422 WOULD_REVERT',
    'POST /info 405 METHOD_NOT_ALLOWED',
    'GET /broker 405 METHOD_NOT_ALLOWED',
    'DELETE /broker 405 METHOD_NOT_ALLOWED',
    'OPTIONS /broker 204 -',
  ])
  for (const line of lines.slice(4)) expect(line).toMatch(accessLinePattern)
  const log = relayer.accessLog()
  expect(log.access).toEqual(log.expected)
})

test('the leak check itself finds a key or signature however it is spelled', () => {
  const probe = createExposure()
  probe.key(key)
  probe.request(soldOutSignature)
  probe.body('{"ok":true}')
  expect(probe.leaks()).toEqual([])
  probe.body(`echo ${key.slice(2).toUpperCase()}`)
  probe.logger([`oops 0x${soldOutSignature.signature.s.slice(2)}`])
  expect(probe.leaks()).toHaveLength(2)
})

const soldOutSignature = { signature: { v: 27, r: `0x${'ab'.repeat(32)}`, s: `0x${'cd'.repeat(32)}` } }

test('no key or signature in any log line or body', () => {
  expect(exposure.leaks()).toEqual([])
})
