// The global in-flight cap (SPEC.md 4.5 item 2): its counter, and its place in the
// relayer's POST /broker, where a slot is held while the order is in the pipeline and
// given back when it is answered, failed or not.
import { afterAll, describe, expect, test } from 'bun:test'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { signOrder } from '../../src/client/index.ts'
import { concurrencyCap } from '../../src/relayer/edge/concurrencyCap.ts'
import { offlineBroker, offlineChainId, offlineRelayer } from '../helpers/offlineRelayer.ts'
import { waitFor } from '../helpers/waitFor.ts'

describe('concurrencyCap', () => {
  test('over the cap: SERVER_BUSY at once with Retry-After 1; a slot comes back on leave', () => {
    const cap = concurrencyCap({ max: 2 })
    expect([cap.enter(), cap.enter()]).toEqual([undefined, undefined])
    expect(cap.enter()).toEqual({
      code: 'SERVER_BUSY',
      message: 'relayer is at its concurrency cap (2 orders in flight); retry shortly or use another relayer',
      headers: { 'Retry-After': '1' },
    })
    expect(cap.inflight).toBe(2)
    cap.leave()
    expect(cap.enter()).toBeUndefined()
    expect(cap.inflight).toBe(2)
  })
})

describe('the cap in POST /broker', () => {
  // An RPC endpoint that holds every request until the test lets them fail.
  const held: Array<() => void> = []
  const rpc = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () =>
      new Promise<Response>((resolve) => {
        held.push(() => resolve(Response.json({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'held, then refused by the test' } })))
      }),
  })
  afterAll(() => rpc.stop(true))

  async function order() {
    const consumer = privateKeyToAccount(generatePrivateKey())
    const address = (byte: string) => `0x${byte.repeat(20)}` as const
    const request = await signOrder({
      account: consumer,
      order: { consumer: consumer.address, adapter: address('0a'), params: `0x${'00'.repeat(31)}01`, payToken: address('0b'), payee: address('0c'), amount: '10000000', nonce: String(Date.now()), feeBps: 100 },
      broker: offlineBroker,
      chainId: offlineChainId,
      domain: { name: 'USD Coin', version: '2', chainId: offlineChainId, verifyingContract: address('0b') },
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 3_600),
    })
    return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) }
  }

  test('an order past the checks holds the one slot; the next is refused at once; the slot comes back when the first fails', async () => {
    // Its made-up pay token has no value: an unpriced budget lets its orders past the checks, to the RPC.
    const { relayer } = offlineRelayer({ RELAYER_MAX_INFLIGHT: '1', RELAYER_FEE_FLOOR_BPS: '10', RELAYER_UNPRICED_GAS_BUDGET_WEI: '1000000000000000000' }, `http://127.0.0.1:${rpc.port}`)
    const first = relayer.app.request('/broker', await order())
    await waitFor('the first order to reach the RPC', () => held.length > 0, 5_000, 5)
    const busy = await relayer.app.request('/broker', await order())
    expect(busy.status).toBe(429)
    expect(((await busy.json()) as { code: string }).code).toBe('SERVER_BUSY')
    // The edge comes before the checks (as in SPEC.md 4.5's order): even a malformed order is told busy.
    const malformed = await relayer.app.request('/broker', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(((await malformed.json()) as { code: string }).code).toBe('SERVER_BUSY')
    // Let the first order's RPC calls fail: it is answered with a failure, and its slot is free again.
    const releasing = setInterval(() => held.splice(0).forEach((fail) => fail()), 5)
    try {
      const failed = await first
      expect(failed.status).not.toBe(200)
      expect(failed.status).not.toBe(429)
      const third = await relayer.app.request('/broker', await order())
      expect(third.status).not.toBe(429)
    } finally {
      clearInterval(releasing)
    }
  })
})
