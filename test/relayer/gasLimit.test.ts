// The gas limit a transaction carries is one the simulation passed with. An order
// whose calldata costs more than the per-adapter cached limit (large `params`: the
// allocation adapter reads only the first word) must still settle, and must never be
// broadcast with a limit the node will not mine: that would wedge every later nonce.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { allocationOrder, signed, vaultParams } from '../helpers/orders.ts'
import { createExposure } from './support/exposure.ts'
import { accessLinePattern, startWatchedRelayer, type WatchedRelayer } from './support/watchedRelayer.ts'

let devnet: Devnet
let relayer: WatchedRelayer
const exposure = createExposure()
const relayerAddress = devnetAccounts.relayer.address

beforeAll(async () => {
  devnet = await startDevnet()
  relayer = await startWatchedRelayer(devnet, exposure, { env: { RELAYER_RECEIPT_TIMEOUT_MS: '3000' } })
}, 60_000)
afterAll(async () => {
  await relayer?.stop()
  await devnet?.stop()
})

async function post(params?: Hex) {
  // 12 KB of calldata costs ~500k gas: its fee must be worth that (docs/economics.md).
  const request = await signed(devnet, allocationOrder(devnet, params ? { params, feeBps: 200 } : {}))
  exposure.request(request)
  return relayer.post(request)
}

test('an order with 12 KB of params settles after small ones primed the cache, and the ones after it too', async () => {
  expect((await post()).status).toBe(200)
  const big = await post(`${vaultParams(1n)}${'ff'.repeat(12_000)}` as Hex)
  expect({ status: big.status, code: big.body.code }).toEqual({ status: 200, code: undefined })
  const tx = await devnet.publicClient.getTransactionReceipt({ hash: big.body.txHash as Hex })
  expect(tx.status).toBe('success')
  expect((await post()).status).toBe(200)
  // Nothing is stuck in the pool.
  expect(await devnet.publicClient.getTransactionCount({ address: relayerAddress, blockTag: 'pending' })).toBe(
    await devnet.publicClient.getTransactionCount({ address: relayerAddress }),
  )
}, 20_000)

test('a large order that would revert is still WOULD_REVERT, named, with nothing sent', async () => {
  const before = await devnet.publicClient.getTransactionCount({ address: relayerAddress })
  const { status, body } = await post(`${vaultParams(7n)}${'ff'.repeat(12_000)}` as Hex)
  expect({ status, body }).toEqual({ status: 422, body: { ok: false, code: 'WOULD_REVERT', message: 'would revert: AllocationSoldOut(vaultId=7)', revert: { contract: 'AllocationAdapter', name: 'AllocationSoldOut', args: { vaultId: '7' }, selector: expect.stringMatching(/^0x[0-9a-f]{8}$/), data: expect.stringMatching(/^0x[0-9a-f]+$/) } } })
  expect(await devnet.publicClient.getTransactionCount({ address: relayerAddress })).toBe(before)
})

test('no key or signature in any log line or body; one access line per request', () => {
  expect(exposure.leaks()).toEqual([])
  const log = relayer.accessLog()
  expect(log.access).toEqual(log.expected)
  for (const line of log.access) expect(line).toMatch(accessLinePattern)
})
