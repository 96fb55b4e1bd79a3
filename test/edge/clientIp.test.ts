import { afterAll, describe, expect, test } from 'bun:test'
import { Hono } from 'hono'
import { clientIp, normalizeIp, type SocketReader } from '../../src/relayer/edge/clientIp.ts'
import { type Cidr, contains, parseTrustedProxies, type TrustedProxies } from '../../src/relayer/edge/trustedProxies.ts'

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
    // IPv4-mapped in hex groups, and a zone inside brackets with a port.
    ['::ffff:7f00:1', '127.0.0.1'],
    ['[fe80::1%eth0]:443', 'fe80:0:0:0::/64'],
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
    app.get('/', (c) => c.text(clientIp(c.req.raw, c.env as SocketReader | undefined, { trustProxy })))
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

  test('with trustProxy (one hop) is the rightmost X-Forwarded-For entry, never the first a client wrote; else the socket', async () => {
    const base = `http://127.0.0.1:${trusting.port}/`
    // nginx with $proxy_add_x_forwarded_for appends the real peer after what the client sent.
    const forwarded = await fetch(base, { headers: { 'x-forwarded-for': '198.51.100.1, 10.0.0.2, 203.0.113.50' } })
    expect(await forwarded.text()).toBe('203.0.113.50')
    const direct = await fetch(base)
    expect(await direct.text()).toBe('127.0.0.1')
  })

  test('is `unknown` outside Bun.serve (no socket)', async () => {
    const response = await keyOf(false).request('/')
    expect(await response.text()).toBe('unknown')
  })
})

describe('trusted proxies', () => {
  const serveWith = (trustedProxies: TrustedProxies) => {
    const app = new Hono()
    app.get('/', (c) => c.text(clientIp(c.req.raw, c.env as SocketReader, { trustProxy: true, trustedProxies })))
    return Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: app.fetch })
  }
  const parsed = (raw: string) => parseTrustedProxies(raw) as TrustedProxies
  const servers: ReturnType<typeof Bun.serve>[] = []
  afterAll(() => {
    for (const server of servers) server.stop(true)
  })
  const keyFrom = async (trusted: TrustedProxies, xff: string | undefined) => {
    const server = serveWith(trusted)
    servers.push(server)
    const response = await fetch(`http://127.0.0.1:${server.port}/`, { headers: xff === undefined ? {} : { 'x-forwarded-for': xff } })
    return response.text()
  }

  test.each([
    // CDN then nginx: the client is the entry the CDN appended, second from the right.
    ['2', 'spoofed, 198.51.100.7, 203.0.113.1', '198.51.100.7'],
    ['2', '198.51.100.7, 203.0.113.1', '198.51.100.7'],
    // Fewer entries than hops (the outer proxy was bypassed): the leftmost one a proxy wrote.
    ['3', '198.51.100.7', '198.51.100.7'],
    ['1', undefined, '127.0.0.1'],
  ])('hops %s, X-Forwarded-For %s → %s', async (hops, xff, client) => {
    expect(await keyFrom(parsed(hops), xff)).toBe(client)
  })

  test.each([
    // The socket (127.0.0.1) and 10.x are proxies: the first address outside them, from the right.
    ['127.0.0.1/32, 10.0.0.0/8', 'spoofed, 198.51.100.7, 10.1.2.3, 10.9.9.9', '198.51.100.7'],
    ['127.0.0.0/8,10.0.0.0/8', '1.2.3.4, 10.0.0.1', '1.2.3.4'],
    // Every hop trusted: the leftmost.
    ['127.0.0.1, 10.0.0.0/8', '10.0.0.5, 10.0.0.1', '10.0.0.5'],
    // The peer is not a trusted proxy: its header is not believed.
    ['10.0.0.0/8', '198.51.100.7', '127.0.0.1'],
    // IPv6 proxies and clients.
    ['::1, 127.0.0.1/32, 2001:db8::/32', '2001:db9::1, 2001:db8:aa::1', '2001:db9:0:0::/64'],
  ])('CIDRs %s, X-Forwarded-For %s → %s', async (cidrs, xff, client) => {
    expect(await keyFrom(parsed(cidrs), xff)).toBe(client)
  })

  test('contains() matches every spelling of an address', () => {
    const net = (parsed('10.0.0.0/8') as { kind: 'cidrs'; cidrs: Cidr[] }).cidrs[0]!
    expect(['10.2.3.4', '10.2.3.4:443', '::ffff:10.2.3.4', '[::ffff:10.2.3.4]:80'].map((a) => contains(net, a))).toEqual([true, true, true, true])
    expect(['11.0.0.1', '2001:db8::1', 'garbage', '', '10.2.3', '10.2.3.4.5', '010.2.3.4'].map((a) => contains(net, a))).toEqual([false, false, false, false, false, false, false])
    const v6 = (parsed('2001:db8::/32') as { kind: 'cidrs'; cidrs: Cidr[] }).cidrs[0]!
    expect(['2001:DB8::1', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db9::', '[2001:db8::1]:443'].map((a) => contains(v6, a))).toEqual([true, true, false, true])
  })
})
