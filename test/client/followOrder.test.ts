// Following an order from the client: `Prefer: respond-async` on POST /broker answers
// 202 with the status route once the tx is broadcast (every refusal before broadcast
// answers as without it), and `status` / `waitForOrder` read GET /broker/{orderHash}.
// anvil's automine is off while an order is pending, so "broadcast, not yet mined" is
// a state the test holds, not a race.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { keccak256, stringToHex } from 'viem'
import { createRelayClient, SubmitError } from '../../src/client/index.ts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { allocationOrder, signed, vaultParams } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'

let devnet: Devnet
let relayer: TestRelayer
let nonceBefore = 0
/** Orders this file expects to settle, one tx each. */
const settled: string[] = []

beforeAll(async () => {
  devnet = await startDevnet()
  relayer = await startTestRelayer(devnet)
  nonceBefore = await devnet.publicClient.getTransactionCount({ address: devnetAccounts.relayer.address })
}, 60_000)

afterAll(async () => {
  await devnet?.testClient.setAutomine(true).catch(() => {})
  await relayer?.stop()
  await devnet?.stop()
}, 30_000)

const errorOf = async (promise: Promise<unknown>) => {
  const error = await promise.catch((e: unknown) => e)
  expect(error).toBeInstanceOf(SubmitError)
  return error as SubmitError
}

describe('Prefer: respond-async', () => {
  test('202 once broadcast, before the block: Location is the status route, which says pending; mined, waitForOrder returns settled', async () => {
    const client = createRelayClient({ url: relayer.url })
    const request = await signed(devnet, allocationOrder(devnet))
    await devnet.testClient.setAutomine(false)
    try {
      const raw = await relayer.post(request, { headers: { prefer: 'respond-async, wait=5' } })
      expect(raw.status).toBe(202)
      expect(raw.headers.get('location')).toBe(`/broker/${request.orderHash}`)
      expect(raw.headers.get('preference-applied')).toBe('respond-async')
      expect(Object.keys(raw.body)).toEqual(['orderHash', 'status', 'txHash'])
      expect([raw.body.orderHash, raw.body.status]).toEqual([request.orderHash, 'pending'])
      const txHash = raw.body.txHash as `0x${string}`
      // Broadcast and not mined: the node holds it, no receipt yet.
      expect((await devnet.publicClient.getTransaction({ hash: txHash })).blockNumber).toBeNull()
      expect(await client.status(request.orderHash!)).toEqual({ orderHash: request.orderHash!, status: 'pending', txHash })

      await devnet.testClient.mine({ blocks: 1 })
      const final = await client.waitForOrder(request.orderHash!, { timeout: 20_000, pollingInterval: 20 })
      const receipt = await devnet.publicClient.getTransactionReceipt({ hash: txHash })
      expect(final).toEqual({ orderHash: request.orderHash!, status: 'settled', txHash, blockNumber: receipt.blockNumber.toString() })
      expect(receipt.status).toBe('success')
      settled.push(request.orderHash!)
    } finally {
      await devnet.testClient.setAutomine(true)
    }
  }, 60_000)

  test('brokerAsync resolves pending with the absolute status URL; the order settles once', async () => {
    const client = createRelayClient({ url: relayer.url })
    const request = await signed(devnet, allocationOrder(devnet))
    await devnet.testClient.setAutomine(false)
    try {
      const submitted = await client.brokerAsync(request)
      expect(submitted).toEqual({
        status: 'pending',
        orderHash: request.orderHash!,
        txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) as unknown as string,
        location: `${relayer.url}/broker/${request.orderHash}`,
      })
      await devnet.testClient.mine({ blocks: 1 })
      const final = await client.waitForOrder(submitted.orderHash, { pollingInterval: 20 })
      expect([final.status, final.txHash]).toEqual(['settled', submitted.txHash])
      settled.push(request.orderHash!)
    } finally {
      await devnet.testClient.setAutomine(true)
    }
  }, 60_000)

  test('every refusal before broadcast answers as without the preference (SPEC 4.3), with no Preference-Applied', async () => {
    const client = createRelayClient({ url: relayer.url })
    const async = { prefer: 'respond-async' }
    const malformed = await relayer.post({ order: {} }, { headers: async })
    expect([malformed.status, malformed.body.code, malformed.headers.get('preference-applied')]).toEqual([400, 'MALFORMED_ORDER', null])
    const mismatch = await relayer.post({ ...(await signed(devnet, allocationOrder(devnet))), orderHash: keccak256(stringToHex('another order')) }, { headers: async })
    expect([mismatch.status, mismatch.body.code]).toEqual([400, 'ORDERHASH_MISMATCH'])
    const past = BigInt(Math.floor(Date.now() / 1000) - 60)
    const expired = await errorOf(client.brokerAsync(await signed(devnet, allocationOrder(devnet), { validBefore: past })))
    expect([expired.code, expired.status]).toEqual(['AUTH_EXPIRED', 422])
    const soldOut = await errorOf(client.brokerAsync(await signed(devnet, allocationOrder(devnet, { params: vaultParams(7n) }))))
    expect([soldOut.code, soldOut.message]).toEqual(['WOULD_REVERT', 'would revert: AllocationSoldOut(vaultId=7)'])
  }, 60_000)

  test('an order already settled is a replay (422 naming its tx), not a 202', async () => {
    const client = createRelayClient({ url: relayer.url })
    const orderHash = settled[0]!
    const first = await client.status(orderHash)
    const request = await signed(devnet, allocationOrder(devnet))
    const success = await client.broker(request)
    settled.push(success.orderHash)
    const replay = await errorOf(client.brokerAsync(request))
    expect(replay.code).toBe('WOULD_REVERT')
    expect(replay.message).toContain(`already settled in tx ${success.txHash}`)
    expect(first.status).toBe('settled')
  }, 60_000)
})

describe('status and waitForOrder', () => {
  test('an order nobody sent is unknown; waitForOrder gives up with TIMEOUT saying what it last saw', async () => {
    const client = createRelayClient({ url: relayer.url })
    const nobody = keccak256(stringToHex('an order nobody sent'))
    expect(await client.status(nobody)).toEqual({ orderHash: nobody, status: 'unknown' })
    const timeout = await errorOf(client.waitForOrder(nobody, { timeout: 150, pollingInterval: 30 }))
    expect(timeout.code).toBe('TIMEOUT')
    expect(timeout.message).toBe(`order ${nobody} is still unknown after 150 ms; wait longer (waitForOrder again) or read its status later`)
  })

  test('a malformed hash is the relayer\'s 400 MALFORMED_ORDER', async () => {
    const error = await errorOf(createRelayClient({ url: relayer.url }).status('0x1234'))
    expect([error.code, error.status]).toEqual(['MALFORMED_ORDER', 400])
  })
})

test('SIGTERM after a 202: the relayer finishes the order (its receipt) before it stops', async () => {
  const own = await startTestRelayer(devnet, { env: { RELAYER_PK: devnetAccounts.secondRelayer.privateKey } })
  const request = await signed(devnet, allocationOrder(devnet))
  await devnet.testClient.setAutomine(false)
  let stopped = false
  try {
    const submitted = await createRelayClient({ url: own.url }).brokerAsync(request)
    expect(submitted.status).toBe('pending')
    const stopping = own.stop().then(() => (stopped = true))
    // Stopping has begun (no new connection is taken), and waits for the order's receipt.
    await waitFor('the relayer to refuse new connections', () => fetch(`${own.url}/health`).then(() => false, () => true))
    expect(stopped).toBe(false)
    await devnet.testClient.mine({ blocks: 1 })
    await stopping
    expect(stopped).toBe(true)
    expect(own.logger.lines).toContain(`POST /broker 202 ACCEPTED`)
    const receipt = await devnet.publicClient.getTransactionReceipt({ hash: submitted.txHash as `0x${string}` })
    expect([receipt.status, receipt.from]).toEqual(['success', devnetAccounts.secondRelayer.address.toLowerCase() as `0x${string}`])
    settled.push(request.orderHash!)
  } finally {
    await devnet.testClient.setAutomine(true)
  }
}, 60_000)

test('money safety: one tx per order, each settled once, none reverted; the access log names each 202', async () => {
  await waitFor('the last order settled', async () => (await createRelayClient({ url: relayer.url }).status(settled.at(-1)!)).status === 'settled')
  const sent = (await devnet.publicClient.getTransactionCount({ address: devnetAccounts.relayer.address })) - nonceBefore
  expect(sent).toBe(settled.length - 1) // the last one went through the second relayer
  expect(new Set(settled).size).toBe(settled.length)
  for (const orderHash of settled) expect((await createRelayClient({ url: relayer.url }).status(orderHash)).status).toBe('settled')
  const accessLines = relayer.logger.lines.filter((line) => line.startsWith('POST /broker 2'))
  expect(accessLines).toEqual(['POST /broker 202 ACCEPTED', 'POST /broker 202 ACCEPTED', 'POST /broker 200 OK'])
})
