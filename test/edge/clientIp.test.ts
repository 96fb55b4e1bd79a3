import { afterAll, describe, expect, test } from 'bun:test'
import { Hono } from 'hono'
import { clientIp, normalizeIp } from '../../src/relayer/edge/clientIp.ts'

describe('normalizeIp', () => {
  test.each([
    ['203.0.113.7', '203.0.113.7'],
    [' 203.0.113.7 ', '203.0.113.7'],
    ['203.0.113.7:51234', '203.0.113.7'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['0:0:0:0:0:ffff:10.1.2.3', '10.1.2.3'],
    ['2001:db8:0:1:aa:bb:cc:dd', '2001:db8:0:1::/64'],
    ['2001:DB8:0:1::5', '2001:db8:0:1::/64'],
    ['[2001:db8::1]:443', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::192.0.2.33', '64:ff9b:0:0::/64'],
    ['unknown', 'unknown'],
  ])('%s → %s', (raw, key) => {
    expect(normalizeIp(raw)).toBe(key)
  })

  test('anything else is cut at 64 characters', () => {
    expect(normalizeIp('x'.repeat(200))).toBe('x'.repeat(64))
  })

  test('two hosts of one IPv6 /64 share a key; neighbouring /64s do not', () => {
    expect(normalizeIp('2001:db8:0:1::a')).toBe(normalizeIp('2001:db8:0:1:ffff::b'))
    expect(normalizeIp('2001:db8:0:1::a')).not.toBe(normalizeIp('2001:db8:0:2::a'))
  })
})

describe('clientIp', () => {
  const keyOf = (trustProxy: boolean) => {
    const app = new Hono()
    app.get('/', (c) => c.text(clientIp(c, { trustProxy })))
    return app
  }
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: keyOf(false).fetch })
  const trusting = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: keyOf(true).fetch })
  afterAll(() => {
    server.stop(true)
    trusting.stop(true)
  })

  test('is the socket address; X-Forwarded-For is ignored without trustProxy', async () => {
    const response = await fetch(`http://127.0.0.1:${server.port}/`, { headers: { 'x-forwarded-for': '198.51.100.1' } })
    expect(await response.text()).toBe('127.0.0.1')
  })

  test('with trustProxy is the first X-Forwarded-For entry, else the socket', async () => {
    const base = `http://127.0.0.1:${trusting.port}/`
    const forwarded = await fetch(base, { headers: { 'x-forwarded-for': '198.51.100.1, 10.0.0.2, 10.0.0.3' } })
    expect(await forwarded.text()).toBe('198.51.100.1')
    const direct = await fetch(base)
    expect(await direct.text()).toBe('127.0.0.1')
  })

  test('is `unknown` outside Bun.serve (no socket)', async () => {
    const response = await keyOf(false).request('/')
    expect(await response.text()).toBe('unknown')
  })
})
