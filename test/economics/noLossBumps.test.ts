// No bump into a foreseeable loss: before the nonce keeper sends an
// order's tx again or at a higher fee, it simulates the order again and judges it at the
// new price. An order whose authorization expired while its tx sat priced out of blocks
// would only revert: its nonce is filled with a 0-value transfer instead, and nothing from
// the key reverts.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Address, Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { expectMoneySafe, txsFrom } from '../chaos/support/ledger.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { nonces } from './support.ts'

let devnet: Devnet
let relayer: TestRelayer
const key = devnetAccounts.relayer.address as Address

beforeAll(async () => {
  devnet = await startDevnet()
  relayer = await startTestRelayer(devnet)
  // Warm: gas limits, fees and the clock known.
  expect((await relayer.post(await signed(devnet, allocationOrder(devnet)))).status).toBe(200)
}, 60_000)
afterAll(async () => {
  await devnet?.testClient.setAutomine(true).catch(() => {})
  await relayer?.stop()
  await devnet?.stop()
})

test('an order whose window passes while its tx is priced out of blocks: filled, never bumped into a revert; answered; nothing reverts', async () => {
  const fromBlock = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
  const startingBaseFee = (await devnet.publicClient.getBlock()).baseFeePerGas!
  const chainNow = (await devnet.publicClient.getBlock()).timestamp
  // 10 % of the amount: a fee that would pay for a bump, so only the expiry stops it.
  const request = await signed(devnet, allocationOrder(devnet, { feeBps: 1_000 }), { validBefore: chainNow + 30n })
  await devnet.testClient.setAutomine(false)
  const before = await nonces(devnet, key)
  const answer = relayer.post(request)
  await waitFor('the order pooled', async () => (await nonces(devnet, key)).pending > before.pending)
  const pool = await devnet.testClient.getTxpoolContent()
  const pooled = Object.values(Object.entries(pool.pending).find(([address]) => address.toLowerCase() === key.toLowerCase())![1])[0]!
  // The base fee jumps past the tx's fee cap, and the window passes while it cannot be mined.
  await devnet.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: BigInt(pooled.maxFeePerGas!) * 4n })
  await devnet.testClient.increaseTime({ seconds: 60 })
  await devnet.testClient.mine({ blocks: 1 })
  const filled = new RegExp(`^warn: tx ${pooled.hash} .* and its order can no longer settle \\(authorization expired\\); filled nonce ${before.pending} with a 0-value transfer, tx (0x[0-9a-f]{64})$`)
  await waitFor('the nonce filled', () => relayer.logger.lines.some((line) => filled.test(line)), 15_000)
  const fillerHash = relayer.logger.lines.find((line) => filled.test(line))!.match(filled)![1] as Hex
  await devnet.testClient.mine({ blocks: 1 })
  await devnet.testClient.setAutomine(true)
  const { status, body } = await answer
  expect({ status, code: body.code }).toEqual({ status: 422, code: 'WOULD_REVERT' })
  expect(String(body.message)).toMatch(new RegExp(`^would revert: authorization expired; its tx ${pooled.hash} .* and its nonce was filled; build a new order with a fresh nonce$`))
  const filler = await devnet.publicClient.getTransactionReceipt({ hash: fillerHash })
  expect(filler.status).toBe('success')
  // The order's tx never mined, and no tx of the key reverted.
  expect((await txsFrom(devnet, key, fromBlock)).map((tx) => [tx.hash, tx.status])).toEqual([[fillerHash, 'success']])
  await devnet.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: startingBaseFee })
  await devnet.testClient.mine({ blocks: 1 })
  await expectMoneySafe(devnet, { key, fromBlock, settle: [], answers: [{ orderHash: request.orderHash as Hex, status, body }] })
}, 30_000)
