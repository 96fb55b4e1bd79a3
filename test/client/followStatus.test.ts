// A 502 that leaves the order's fate open says to follow GET /broker/{orderHash}
// (its tx may still settle, or be replaced by the nonce keeper with a higher-fee one),
// and the client library follows it: against a real relayer whose
// receipt wait ends before a block comes, `broker()` polls the status route while the
// order is pending, sends the request again once it settled, and resolves with the
// settlement (the same tx, never a second one). Within `timeoutMs`: still pending at
// the deadline, the relayer's 502 is what the caller gets.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createRelayClient, SubmitError } from 'order-relay/client'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'

let devnet: Devnet
let relayer: TestRelayer

beforeAll(async () => {
  devnet = await startDevnet()
  relayer = await startTestRelayer(devnet, { env: { RELAYER_RECEIPT_TIMEOUT_MS: '300', RELAYER_DB: ':memory:' } })
  // Warm: the first order reads the gas price, the chain time and the adapter's gas limit.
  expect((await relayer.post(await signed(devnet, allocationOrder(devnet)))).status).toBe(200)
}, 60_000)
afterAll(async () => {
  await devnet?.testClient.setAutomine(true).catch(() => {})
  await relayer?.stop()
  await devnet?.stop()
})

/** A fetch that keeps the method and path of every request the client made. */
function recorded() {
  const calls: string[] = []
  const recording = async (input: string | URL | Request, init?: RequestInit) => {
    calls.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`)
    return fetch(input, init)
  }
  return { calls, fetch: recording as typeof fetch }
}

test('a 502 naming a pending tx: broker() follows the status route, sends the request again once settled, and resolves with that tx', async () => {
  const request = await signed(devnet, allocationOrder(devnet))
  const { calls, fetch } = recorded()
  const client = createRelayClient({ url: relayer.url, fetch, timeoutMs: 30_000 })
  await devnet.testClient.setAutomine(false)
  const settled = client.broker(request)
  // The relayer answered 502 and the client is following: only then does a block come.
  await waitFor('the client polling the status route', () => calls.filter((call) => call === `GET /broker/${request.orderHash}`).length >= 2, 15_000)
  const pooled = await devnet.publicClient.getBlock({ blockTag: 'pending' })
  expect(pooled.transactions).toHaveLength(1)
  await devnet.testClient.mine({ blocks: 1 })
  await devnet.testClient.setAutomine(true)
  const success = await settled
  expect(success.txHash).toBe(pooled.transactions[0] as Hex)
  expect(success.orderHash).toBe(request.orderHash as Hex)
  expect(calls[0]).toBe('POST /broker')
  expect(calls.at(-1)).toBe('POST /broker')
  expect(calls.filter((call) => call === 'POST /broker')).toHaveLength(2)
  // Never a second tx: the relayer's key sent one tx for the order.
  expect(await devnet.publicClient.getTransactionCount({ address: devnetAccounts.relayer.address, blockTag: 'pending' })).toBe(
    await devnet.publicClient.getTransactionCount({ address: devnetAccounts.relayer.address }),
  )
}, 60_000)

test('still pending at timeoutMs: the relayer\'s 502 naming the tx and the status route is thrown', async () => {
  const request = await signed(devnet, allocationOrder(devnet))
  const { calls, fetch } = recorded()
  const client = createRelayClient({ url: relayer.url, fetch, timeoutMs: 2_000 })
  await devnet.testClient.setAutomine(false)
  try {
    let failure: unknown
    try {
      await client.broker(request)
    } catch (error) {
      failure = error
    }
    expect(failure).toBeInstanceOf(SubmitError)
    expect((failure as SubmitError).code).toBe('UPSTREAM_RPC')
    expect((failure as SubmitError).message).toContain(`follow GET /broker/${request.orderHash!.toLowerCase()} until it says settled or reverted`)
    expect(calls.filter((call) => call.startsWith('GET /broker/')).length).toBeGreaterThan(0)
  } finally {
    await devnet.testClient.mine({ blocks: 1 })
    await devnet.testClient.setAutomine(true)
  }
  // Once mined, a plain retry gets the settlement.
  expect((await relayer.post(request)).status).toBe(200)
}, 60_000)
