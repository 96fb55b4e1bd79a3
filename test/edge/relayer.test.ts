// SPEC.md 4.5 / 7.2 end to end: a real relayer with the hardened edge on, over real
// HTTP on 127.0.0.1, settling real orders on anvil. The browser half of CORS is in
// browser.test.ts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createRelayClient, SubmitError } from '../../src/client/index.ts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { hashOrder, type RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'

let devnet: Devnet
const relayers: TestRelayer[] = []

beforeAll(async () => {
  devnet = await startDevnet()
}, 60_000)
afterAll(async () => {
  for (const relayer of relayers) await relayer.stop()
  await devnet?.stop()
})

async function hardened(env: Record<string, string>) {
  const relayer = await startTestRelayer(devnet, { env })
  relayers.push(relayer)
  return relayer
}

async function stopRelayer(relayer: TestRelayer) {
  await relayer.stop()
  relayers.splice(relayers.indexOf(relayer), 1)
}

const order = async (): Promise<RelayRequest> => signed(devnet, allocationOrder(devnet))
const relayerAddress = devnetAccounts.relayer.address

/** Resolves once `predicate` holds, polling every 10 ms; fails after `ms`. */
async function until(what: string, predicate: () => boolean | Promise<boolean>, ms = 5_000) {
  const deadline = Date.now() + ms
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(10)
  }
}

describe('edge off (the default)', () => {
  test('no limit, public reads open to any origin, and the start-up line says how to turn it on', async () => {
    const relayer = await hardened({})
    const answers = await Promise.all(Array.from({ length: 40 }, () => fetch(`${relayer.url}/info`)))
    expect(answers.map((r) => r.status)).toEqual(Array(40).fill(200))
    expect(answers[0]?.headers.get('access-control-allow-origin')).toBe('*')
    expect(relayer.logger.lines).toContain('hardened edge: off (set RELAYER_HARDENED=1 to enable)')
    await stopRelayer(relayer)
  })
})

describe('per-client token bucket', () => {
  test('a burst over the bucket gets 429 RATE_LIMITED with a Retry-After that is then enough', async () => {
    // 0.25 tokens/s, 2 at once: an empty bucket needs 4 s for a token → Retry-After 4
    // (as long as the first settlement takes under a second, which refills < 0.25).
    const relayer = await hardened({ RELAYER_RATE_PER_SEC: '0.25', RELAYER_RATE_BURST: '2' })
    expect(relayer.logger.lines).toContain(
      '  rate limit: 0.25 requests/s per client, burst 2, client = socket address; over it 429 RATE_LIMITED with Retry-After',
    )
    const first = await order()
    const second = await order()

    expect((await fetch(`${relayer.url}/info`)).status).toBe(200)
    const settled = await relayer.post(first)
    expect(settled.status).toBe(200)
    expect(settled.body.ok).toBe(true)

    const refused = await relayer.post(second)
    const refusedAt = Date.now()
    expect({ status: refused.status, retryAfter: refused.headers.get('retry-after'), body: refused.body }).toEqual({
      status: 429,
      retryAfter: '4',
      body: { ok: false, code: 'RATE_LIMITED', message: 'rate limit exceeded for this client (0.25 requests/s, burst 2); retry after 4 s' },
    })
    // GET /info shares the bucket; X-Forwarded-For is not believed without RELAYER_TRUST_PROXY.
    const info = await fetch(`${relayer.url}/info`, { headers: { 'x-forwarded-for': '198.51.100.9' } })
    expect([info.status, info.headers.get('retry-after')]).toEqual([429, '4'])

    // One second short of Retry-After is still refused...
    await Bun.sleep(refusedAt + 3_000 - Date.now())
    expect((await fetch(`${relayer.url}/info`)).status).toBe(429)
    // ...after it, the refused order goes through untouched.
    await Bun.sleep(refusedAt + 4_000 - Date.now())
    const retried = await relayer.post(second)
    expect(retried.status).toBe(200)
    expect(retried.body.orderHash).toBe(hashOrder(second.order))
    expect(relayer.logger.lines.filter((line) => line.startsWith('POST /broker'))).toEqual([
      'POST /broker 200 OK',
      'POST /broker 429 RATE_LIMITED',
      'POST /broker 200 OK',
    ])
    await stopRelayer(relayer)
  }, 20_000)

  test('with RELAYER_TRUST_PROXY=1 each X-Forwarded-For client has its own bucket', async () => {
    // Two proxies in front (an outer one at 10.0.0.1, the socket peer at 127.0.0.1), named by CIDR.
    const relayer = await hardened({
      RELAYER_RATE_BURST: '1',
      RELAYER_RATE_PER_SEC: '0.01',
      RELAYER_TRUST_PROXY: '1',
      RELAYER_TRUSTED_PROXIES: '127.0.0.1/32, 10.0.0.0/8',
    })
    const get = (ip: string) => fetch(`${relayer.url}/info`, { headers: { 'x-forwarded-for': `${ip}, 10.0.0.1` } }).then((r) => r.status)
    expect([await get('198.51.100.1'), await get('198.51.100.1'), await get('198.51.100.2'), await get('2001:db8:0:7::1'), await get('2001:db8:0:7::2')]).toEqual([
      200, 429, 200, 200, 429,
    ])
    // A client that writes its own X-Forwarded-For gets nothing: the proxy appended its real address.
    expect(await get('203.0.113.77, 198.51.100.1')).toBe(429)
    await stopRelayer(relayer)
  })

  test('with RELAYER_TRUST_PROXY=1 alone (one proxy), the first X-Forwarded-For entry buys no fresh bucket', async () => {
    const relayer = await hardened({ RELAYER_RATE_BURST: '1', RELAYER_RATE_PER_SEC: '0.01', RELAYER_TRUST_PROXY: '1' })
    const get = (xff: string) => fetch(`${relayer.url}/info`, { headers: { 'x-forwarded-for': xff } }).then((r) => r.status)
    expect([await get('198.51.100.1'), await get('203.0.113.1, 198.51.100.1'), await get('203.0.113.2, 198.51.100.1'), await get('198.51.100.2')]).toEqual([
      200, 429, 429, 200,
    ])
    await stopRelayer(relayer)
  })
})

describe('client library', () => {
  test('reads an edge rejection as a SubmitError with its code and retryAfter', async () => {
    const relayer = await hardened({ RELAYER_RATE_BURST: '1', RELAYER_RATE_PER_SEC: '0.25' })
    const client = createRelayClient({ url: relayer.url })
    expect((await client.info()).relayer).toBe(relayerAddress)
    const error = await client.info().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(SubmitError)
    const { code, status, retryAfter, message } = error as SubmitError
    expect({ code, status, retryAfter, message }).toEqual({
      code: 'RATE_LIMITED',
      status: 429,
      retryAfter: 4,
      message: 'rate limit exceeded for this client (0.25 requests/s, burst 1); retry after 4 s',
    })
    await stopRelayer(relayer)
  })
})

describe('global in-flight cap', () => {
  test('a burst of slow settlements over the cap: SERVER_BUSY at once for the excess, the rest settle', async () => {
    const relayer = await hardened({ RELAYER_MAX_INFLIGHT: '3', RELAYER_RATE_BURST: '100' })
    const requests = await Promise.all(Array.from({ length: 8 }, order))
    // Settlements stay in flight until we mine: nothing can finish early and free a slot.
    await devnet.testClient.setAutomine(false)
    try {
      const done: Array<Awaited<ReturnType<TestRelayer['post']>>> = []
      const all = requests.map((request) => relayer.post(request).then((answer) => (done.push(answer), answer)))
      // Refused while nothing can settle (automine is off): answered at once, not queued.
      await until('the excess to be refused', () => done.length === 5)
      expect(done.map((a) => [a.status, a.headers.get('retry-after'), a.body])).toEqual(
        Array(5).fill([
          429,
          '1',
          { ok: false, code: 'SERVER_BUSY', message: 'relayer is at its concurrency cap (3 orders in flight); retry shortly or use another relayer' },
        ]),
      )
      // GET /info is not capped.
      expect((await fetch(`${relayer.url}/info`)).status).toBe(200)
      // The client library sees SERVER_BUSY with Retry-After 1.
      const busy = await createRelayClient({ url: relayer.url })
        .broker(await order())
        .then(
          () => undefined,
          (e: unknown) => e as SubmitError,
        )
      expect([busy?.code, busy?.status, busy?.retryAfter]).toEqual(['SERVER_BUSY', 429, 1])
      await until('three transactions in the pool', async () => (await devnet.testClient.getTxpoolStatus()).pending === 3)
      expect(done.length).toBe(5)
      await devnet.testClient.mine({ blocks: 1 })
      const answers = await Promise.all(all)
      const settled = answers.filter((a) => a.status === 200)
      expect(settled.length).toBe(3)
      expect(settled.every((a) => a.body.ok === true)).toBe(true)
      const block = await devnet.publicClient.getBlock({ includeTransactions: false })
      expect(new Set(block.transactions)).toEqual(new Set(settled.map((a) => a.body.txHash as `0x${string}`)))
    } finally {
      await devnet.testClient.setAutomine(true)
    }
    // Slots are free again.
    expect((await relayer.post(await order())).status).toBe(200)
    await stopRelayer(relayer)
  }, 30_000)
})

describe('gas circuit breaker', () => {
  test('draining the key below the floor pauses POST /broker; topping it up resumes it', async () => {
    const floor = 10n ** 18n
    const allowedOrigin = 'http://127.0.0.1:5173'
    const original = await devnet.publicClient.getBalance({ address: relayerAddress })
    const relayer = await hardened({
      RELAYER_GAS_FLOOR_WEI: floor.toString(),
      RELAYER_BALANCE_POLL_MS: '50',
      RELAYER_CORS_ORIGINS: allowedOrigin,
    })
    try {
      expect((await relayer.post(await order())).status).toBe(200)

      await devnet.testClient.setBalance({ address: relayerAddress, value: floor - 1n })
      const pausedLine = `warn: gas breaker: relayer balance ${floor - 1n} wei is below the floor ${floor} wei; POST /broker paused until it is topped up`
      await until('the breaker to open', () => relayer.logger.lines.includes(pausedLine))

      const request = await order()
      const nonceBefore = await devnet.publicClient.getTransactionCount({ address: relayerAddress })
      const paused = await relayer.post(request, { headers: { origin: allowedOrigin } })
      expect({ status: paused.status, body: paused.body, cors: paused.headers.get('access-control-allow-origin') }).toEqual({
        status: 503,
        body: {
          ok: false,
          code: 'INSUFFICIENT_RELAYER_GAS',
          message:
            'relayer gas balance is below its floor, so POST /broker is paused until it is topped up; try another relayer or run your own',
        },
        cors: allowedOrigin,
      })
      // The pipeline was not touched: no transaction left the key.
      expect(await devnet.publicClient.getTransactionCount({ address: relayerAddress })).toBe(nonceBefore)
      // GET /info keeps answering, and a preflight is answered by CORS, not by the breaker.
      expect((await fetch(`${relayer.url}/info`)).status).toBe(200)
      const preflight = await fetch(`${relayer.url}/broker`, {
        method: 'OPTIONS',
        headers: { origin: allowedOrigin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      })
      expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([204, allowedOrigin])

      await devnet.testClient.setBalance({ address: relayerAddress, value: original })
      await until('the breaker to close', () => relayer.logger.lines.some((line) => line.endsWith('POST /broker resumed')))
      const resumed = await relayer.post(request)
      expect([resumed.status, resumed.body.ok]).toEqual([200, true])
      const lines = relayer.logger.lines
      expect(lines.slice(lines.indexOf('POST /broker 200 OK'))).toEqual([
        'POST /broker 200 OK',
        pausedLine,
        'POST /broker 503 INSUFFICIENT_RELAYER_GAS',
        'GET /info 200 -',
        'OPTIONS /broker 204 -',
        `gas breaker: relayer balance ${original} wei is back at or above the floor ${floor} wei; POST /broker resumed`,
        'POST /broker 200 OK',
      ])
    } finally {
      await devnet.testClient.setBalance({ address: relayerAddress, value: original })
      await stopRelayer(relayer)
    }
  }, 20_000)
})
