// The client library (`order-relay/client`) against real relayers over HTTP: info(),
// a settled order, and every failure as a SubmitError with the relayer's code.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createRelayClient, type RelayClient, SubmitError, type SubmitErrorCode } from 'order-relay/client'
import { generatePrivateKey } from 'viem/accounts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import type { RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed, vaultParams } from '../helpers/orders.ts'
import { chainTime } from '../relayer/support/chain.ts'
import { createExposure } from '../relayer/support/exposure.ts'
import { startWatchedRelayer, type WatchedRelayer } from '../relayer/support/watchedRelayer.ts'
import { recordingFetch } from './support/recordingFetch.ts'

let devnet: Devnet
const relayers: WatchedRelayer[] = []
const exposure = createExposure()
const fetchAndRecord = recordingFetch(exposure)

async function relayerWith(env: Record<string, string> = {}): Promise<{ client: RelayClient; relayer: WatchedRelayer }> {
  const relayer = await startWatchedRelayer(devnet, exposure, { env })
  relayers.push(relayer)
  return { relayer, client: createRelayClient({ url: relayer.url, fetch: fetchAndRecord }) }
}

let client: RelayClient

beforeAll(async () => {
  devnet = await startDevnet()
  client = (await relayerWith()).client
}, 60_000)
afterAll(async () => {
  for (const relayer of relayers) await relayer.stop()
  await devnet?.stop()
})

/** The SubmitError a call throws, as a plain object. */
async function failureOf(call: Promise<unknown>) {
  try {
    await call
  } catch (error) {
    expect(error).toBeInstanceOf(SubmitError)
    const { code, status, message, retryAfter, name } = error as SubmitError
    return { name, code, status, message, retryAfter }
  }
  throw new Error('expected a SubmitError')
}

const submitError = (code: SubmitErrorCode, status: number, message: string, retryAfter?: number) => ({
  name: 'SubmitError',
  code,
  status,
  message,
  retryAfter,
})

test('info(): the RelayerInfo, validated', async () => {
  expect(await client.info()).toMatchObject({ feeFloorBps: 0, supportedChainIds: [devnet.chainId], relayer: devnetAccounts.relayer.address })
  // A trailing slash on the URL is fine.
  const slashed = createRelayClient({ url: `${client.url}/`, fetch: fetchAndRecord })
  expect(slashed.url).toBe(client.url)
  expect((await slashed.info()).feeFloorBps).toBe(0)
})

test('broker(): a signed order settles and comes back as a RelaySuccess', async () => {
  const request = await signed(devnet, allocationOrder(devnet))
  const success = await client.broker(request)
  expect(success).toMatchObject({ ok: true, orderHash: request.orderHash, feeCollected: '50000' })
  expect(success.brokered).toEqual({
    consumer: devnetAccounts.consumer.address,
    adapter: expect.stringMatching(new RegExp(`^${devnet.manifest.contracts.allocationAdapter}$`, 'i')),
    amount: '10000000',
    orderHash: request.orderHash!,
  })
  const receipt = await devnet.publicClient.getTransactionReceipt({ hash: success.txHash as `0x${string}` })
  expect(receipt.status).toBe('success')
})

describe('every relayer code surfaces as a SubmitError with its status', () => {
  test('MALFORMED_ORDER 400', async () => {
    const request = await signed(devnet, allocationOrder(devnet))
    const bad = { ...request, order: { ...request.order, feeBps: '50' } } as unknown as RelayRequest
    expect(await failureOf(client.broker(bad))).toEqual(
      submitError('MALFORMED_ORDER', 400, 'malformed request: order.feeBps must be an integer (feeBps is a uint16)'),
    )
  })

  test('ORDERHASH_MISMATCH 400', async () => {
    const request = await signed(devnet, allocationOrder(devnet))
    const other = await signed(devnet, allocationOrder(devnet))
    expect(await failureOf(client.broker({ ...request, orderHash: other.orderHash }))).toEqual(
      submitError('ORDERHASH_MISMATCH', 400, `orderHash does not match the order (recomputed ${request.orderHash}); re-encode the order`),
    )
  })

  test('FEE_BELOW_FLOOR 402', async () => {
    const { client: floored } = await relayerWith({ RELAYER_FEE_FLOOR_BPS: '100', RELAYER_PK: devnetAccounts.secondRelayer.privateKey })
    const request = await signed(devnet, allocationOrder(devnet, { feeBps: 50 }))
    expect(await failureOf(floored.broker(request))).toEqual(
      submitError('FEE_BELOW_FLOOR', 402, "feeBps 50 is below this relayer's floor of 100; raise feeBps or choose another relayer (GET /info)"),
    )
  })

  test('WOULD_REVERT 422', async () => {
    const request = await signed(devnet, allocationOrder(devnet, { params: vaultParams(7n) }))
    const refusal = client.broker(request)
    expect(await failureOf(refusal)).toEqual(submitError('WOULD_REVERT', 422, 'would revert: AllocationSoldOut(vaultId=7)'))
    // The decoded revert, for a program to match by name and arguments.
    const { revert } = (await refusal.catch((error: unknown) => error)) as SubmitError
    expect(revert).toEqual({ contract: 'AllocationAdapter', name: 'AllocationSoldOut', args: { vaultId: '7' }, selector: expect.stringMatching(/^0x[0-9a-f]{8}$/), data: expect.stringMatching(/^0x[0-9a-f]{72}$/) })
  })

  test('AUTH_EXPIRED 422', async () => {
    const request = await signed(devnet, allocationOrder(devnet), { validBefore: (await chainTime(devnet)) - 5n })
    const failure = await failureOf(client.broker(request))
    expect(failure).toEqual(submitError('AUTH_EXPIRED', 422, expect.stringMatching(/^authorization window has passed \(validBefore \d+, (chain time \d+|this relayer's clock \d+; chain time \d+)\); re-sign with a fresh window$/)))
  })

  test('INSUFFICIENT_RELAYER_GAS 503', async () => {
    const { client: broke } = await relayerWith({ RELAYER_PK: generatePrivateKey() })
    const request = await signed(devnet, allocationOrder(devnet))
    expect(await failureOf(broke.broker(request))).toEqual(
      submitError('INSUFFICIENT_RELAYER_GAS', 503, 'relayer gas account cannot pay for gas; try another relayer or run your own'),
    )
  })

  test('UPSTREAM_RPC 502', async () => {
    const { client: dead } = await relayerWith({ RELAYER_RPC_URL: `http://127.0.0.1:${await freePort()}` })
    const request = await signed(devnet, allocationOrder(devnet))
    expect(await failureOf(dead.broker(request))).toEqual(
      submitError('UPSTREAM_RPC', 502, "the relayer's RPC failed while reading the chain time; retry or try another relayer"),
    )
  })
})

test("a relayer URL with a path: the relayer's own 404 is BAD_RESPONSE naming its code and message and saying to check the URL", async () => {
  const relayer = relayers[0]!
  const misplaced = createRelayClient({ url: `${relayer.url}/api`, fetch: fetchAndRecord })
  expect(await failureOf(misplaced.info())).toEqual(
    submitError(
      'BAD_RESPONSE',
      404,
      "GET /info: the server answered 404 NOT_FOUND (no such route: GET /api/openapi.json lists the routes this relayer serves); check the relayer URL: it should be the relayer's root, without a path",
    ),
  )
  const request = await signed(devnet, allocationOrder(devnet))
  expect(await failureOf(misplaced.broker(request))).toMatchObject({ code: 'BAD_RESPONSE', status: 404 })
  relayer.expect('GET /api/info 404 NOT_FOUND')
  relayer.expect('POST /api/broker 404 NOT_FOUND')
})

describe('hardened-edge codes, with Retry-After', () => {
  test('RATE_LIMITED 429: retryAfter in seconds', async () => {
    const { client: limited } = await relayerWith({ RELAYER_RATE_BURST: '1', RELAYER_RATE_PER_SEC: '0.25', RELAYER_PK: devnetAccounts.spare.privateKey })
    await limited.info()
    const failure = await failureOf(limited.info())
    expect(failure).toEqual(submitError('RATE_LIMITED', 429, expect.stringMatching(/^rate limit exceeded/), 4))
  })

  test('SERVER_BUSY 429 while the relayer is at its cap', async () => {
    const { client: capped } = await relayerWith({ RELAYER_MAX_INFLIGHT: '1', RELAYER_PK: devnetAccounts.payee.privateKey })
    const [first, second] = await Promise.all([signed(devnet, allocationOrder(devnet)), signed(devnet, allocationOrder(devnet))])
    await devnet.testClient.setAutomine(false)
    try {
      const holding = capped.broker(first!)
      while ((await devnet.publicClient.getBlock({ blockTag: 'pending', includeTransactions: false })).transactions.length === 0) await Bun.sleep(5)
      expect(await failureOf(capped.broker(second!))).toEqual(submitError('SERVER_BUSY', 429, expect.stringMatching(/^relayer is at its concurrency cap/), 1))
      await devnet.testClient.mine({ blocks: 1 })
      expect((await holding).ok).toBe(true)
    } finally {
      await devnet.testClient.setAutomine(true)
    }
  }, 20_000)
})

test('no key or signature in anything the client received, nor in any relayer log line', () => {
  expect(exposure.counts.bodies).toBeGreaterThan(10)
  expect(exposure.leaks()).toEqual([])
})
