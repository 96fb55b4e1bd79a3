// SPEC.md 7.1: every relayer code with its HTTP status, through the real HTTP
// pipeline. UPSTREAM_RPC (dead RPC, receipt timeout) is in upstream.test.ts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { getAddress } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { hashOrder } from '../../src/wire/index.ts'
import { allocationOrder, signed, vaultParams } from '../helpers/orders.ts'
import { chainTime } from './support/chain.ts'
import { createExposure } from './support/exposure.ts'
import { accessLinePattern, startWatchedRelayer, type WatchedRelayer } from './support/watchedRelayer.ts'

let devnet: Devnet
let relayer: WatchedRelayer
const relayers: WatchedRelayer[] = []
const exposure = createExposure()

beforeAll(async () => {
  devnet = await startDevnet()
  relayer = await startWatchedRelayer(devnet, exposure)
  relayers.push(relayer)
}, 60_000)
afterAll(async () => {
  for (const each of relayers) await each.stop()
  await devnet?.stop()
})

const failure = (status: number, code: string, message: string) => ({ status, body: { ok: false, code, message } })

describe('MALFORMED_ORDER 400', () => {
  test('body that is not JSON', async () => {
    const { status, body } = await relayer.post(undefined, { raw: '{"order": {' })
    expect({ status, body }).toEqual(failure(400, 'MALFORMED_ORDER', 'malformed request: body is not valid JSON'))
  })

  test('wrong content type (the JSON itself is fine)', async () => {
    const request = await signed(devnet, allocationOrder(devnet))
    exposure.request(request)
    const { status, body } = await relayer.post(request, { headers: { 'content-type': 'text/plain' } })
    expect({ status, body }).toEqual(failure(400, 'MALFORMED_ORDER', 'malformed request: Content-Type must be application/json'))
  })

  test('a body over 64 KiB', async () => {
    const { status, body } = await relayer.post({ pad: 'x'.repeat(70_000) })
    expect({ status, body }).toEqual(failure(400, 'MALFORMED_ORDER', 'malformed request: body is larger than 65536 bytes'))
  })

  test('JSON that is not an object (an array included)', async () => {
    for (const raw of ['null', '[]', '[{}]', '"order"', '42']) {
      const { status, body } = await relayer.post(undefined, { raw })
      expect({ status, body }).toEqual(failure(400, 'MALFORMED_ORDER', 'malformed request: body must be a JSON object'))
    }
  })

  test('wrong field types name the field and never echo the value', async () => {
    const request = await signed(devnet, allocationOrder(devnet))
    exposure.request(request)
    const cases: [unknown, string][] = [
      [{ ...request, order: { ...request.order, feeBps: '50' } }, 'malformed request: order.feeBps must be an integer (feeBps is a uint16)'],
      [{ ...request, order: { ...request.order, feeBps: 65536 } }, 'malformed request: order.feeBps must be at most 65535 (feeBps is a uint16)'],
      [{ ...request, order: { ...request.order, feeBps: 1.5 } }, 'malformed request: order.feeBps must be an integer (feeBps is a uint16)'],
      [{ ...request, order: { ...request.order, amount: 10 } }, 'malformed request: order.amount must be a decimal string'],
      [{ ...request, order: { ...request.order, nonce: '007' } }, 'malformed request: order.nonce must be a canonical decimal string (digits only, no sign, no leading zero)'],
      // A secret pasted into a field is not quoted back.
      [{ ...request, order: { ...request.order, amount: devnetAccounts.relayer.privateKey } }, 'malformed request: order.amount must be a canonical decimal string (digits only, no sign, no leading zero)'],
      [{ ...request, order: { ...request.order, extra: 'x' } }, 'malformed request: order has an unexpected field'],
      [{ ...request, signature: undefined }, 'malformed request: signature is required'],
      [{ ...request, validBefore: 1 }, 'malformed request: validBefore must be a decimal string'],
      [{ ...request, chainId: '421614' }, 'malformed request: chainId must be an integer (chainId)'],
      [{ ...request, orderHash: '0x12' }, 'malformed request: orderHash must be 32 bytes of hex: 0x followed by 64 hex digits'],
      [{}, 'malformed request: order is required; signature is required; validAfter is required; validBefore is required; chainId is required'],
    ]
    for (const [input, message] of cases) {
      const { status, body } = await relayer.post(input)
      expect({ status, body }).toEqual(failure(400, 'MALFORMED_ORDER', message))
    }
  })

  test('a chainId this relayer does not serve', async () => {
    const request = await signed(devnet, allocationOrder(devnet))
    exposure.request(request)
    const { status, body } = await relayer.post({ ...request, chainId: 46630 })
    expect({ status, body }).toEqual(failure(400, 'MALFORMED_ORDER', 'chainId is not one this relayer serves (it serves 421614; see GET /info)'))
  })
})

test('ORDERHASH_MISMATCH 400: the client hash is compared, never trusted', async () => {
  const request = await signed(devnet, allocationOrder(devnet))
  exposure.request(request)
  const other = hashOrder(allocationOrder(devnet))
  const { status, body } = await relayer.post({ ...request, orderHash: other })
  expect({ status, body }).toEqual(
    failure(400, 'ORDERHASH_MISMATCH', `orderHash does not match the order (recomputed ${request.orderHash}); re-encode the order`),
  )
})

describe('FEE_BELOW_FLOOR 402 (RELAYER_FEE_FLOOR_BPS)', () => {
  let floored: WatchedRelayer
  beforeAll(async () => {
    floored = await startWatchedRelayer(devnet, exposure, { env: { RELAYER_FEE_FLOOR_BPS: '100', RELAYER_PK: devnetAccounts.secondRelayer.privateKey } })
    relayers.push(floored)
  })

  test('feeBps under the floor is refused', async () => {
    const request = await signed(devnet, allocationOrder(devnet, { feeBps: 99 }))
    exposure.request(request)
    const { status, body } = await floored.post(request)
    expect({ status, body }).toEqual(
      failure(402, 'FEE_BELOW_FLOOR', "feeBps 99 is below this relayer's floor of 100; raise feeBps or choose another relayer (GET /info)"),
    )
  })

  test('feeBps at the floor settles, and the fee goes to that relayer', async () => {
    const request = await signed(devnet, allocationOrder(devnet, { feeBps: 100 }))
    exposure.request(request)
    const { status, body } = await floored.post(request)
    expect(status).toBe(200)
    expect(body.feeCollected).toBe('100000') // 1% of 10 USDC
  })
})

test('WOULD_REVERT 422', async () => {
  const request = await signed(devnet, allocationOrder(devnet, { params: vaultParams(7n) }))
  exposure.request(request)
  const { status, body } = await relayer.post(request)
  expect({ status, body }).toEqual({
    status: 422,
    body: { ok: false, code: 'WOULD_REVERT', message: 'would revert: AllocationSoldOut(vaultId=7)', revert: { contract: 'AllocationAdapter', name: 'AllocationSoldOut', args: { vaultId: '7' }, selector: expect.stringMatching(/^0x[0-9a-f]{8}$/), data: expect.stringMatching(/^0x[0-9a-f]+$/) } },
  })
})

test('AUTH_EXPIRED 422', async () => {
  const validBefore = (await chainTime(devnet)) - 1n
  const request = await signed(devnet, allocationOrder(devnet), { validBefore })
  exposure.request(request)
  const { status, body } = await relayer.post(request)
  expect(status).toBe(422)
  expect(body.code).toBe('AUTH_EXPIRED')
})

test('INSUFFICIENT_RELAYER_GAS 503: a gas key with no ETH', async () => {
  const emptyKey = generatePrivateKey()
  expect(await devnet.publicClient.getBalance({ address: privateKeyToAddress(emptyKey) })).toBe(0n)
  const broke = await startWatchedRelayer(devnet, exposure, { env: { RELAYER_PK: emptyKey } })
  relayers.push(broke)
  const request = await signed(devnet, allocationOrder(devnet))
  exposure.request(request)
  const { status, body } = await broke.post(request)
  expect({ status, body }).toEqual(
    failure(503, 'INSUFFICIENT_RELAYER_GAS', 'relayer gas account cannot pay for gas; try another relayer or run your own'),
  )
  // Nothing was spent: the consumer's authorization is still unused, so another relayer can settle it.
  const settled = await relayer.post(request)
  expect(settled.status).toBe(200)
})

test('200 OK: a RelaySuccess with the Brokered fields and the fee', async () => {
  const request = await signed(devnet, allocationOrder(devnet))
  exposure.request(request)
  const { status, body } = await relayer.post(request)
  expect(status).toBe(200)
  const receipt = await devnet.publicClient.getTransactionReceipt({ hash: body.txHash as `0x${string}` })
  expect(receipt.status).toBe('success')
  expect(receipt.from).toBe(devnetAccounts.relayer.address.toLowerCase() as `0x${string}`)
  expect(body).toEqual({
    ok: true,
    txHash: receipt.transactionHash,
    orderHash: request.orderHash,
    brokered: {
      consumer: devnetAccounts.consumer.address,
      adapter: getAddress(devnet.manifest.contracts.allocationAdapter),
      amount: '10000000',
      orderHash: request.orderHash,
    },
    receipt: {
      adapter: 'allocation',
      event: 'AllocationGranted',
      fields: { orderHash: request.orderHash, vaultId: '1', consumer: devnetAccounts.consumer.address, slot: '2' }, // slots 0 and 1 went to the two orders settled above
    },
    feeCollected: '50000',
  })
})

test('no key or signature in any log line or body; one access line per request', () => {
  expect(exposure.leaks()).toEqual([])
  for (const each of relayers) {
    const log = each.accessLog()
    expect(log.access).toEqual(log.expected)
    for (const line of log.access) expect(line).toMatch(accessLinePattern)
  }
})
