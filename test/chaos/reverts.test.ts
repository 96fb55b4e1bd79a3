// One consumer makes the gas key pay for reverts: its order passes simulation, then
// the consumer cancels the authorization (`cancelAuthorization`) in the same block,
// ahead of the relayer's tx. Unchecked, the order could be sent again and again, each
// time reverting and each time paid. The reverted order is refused without a
// broadcast, naming its tx, and the consumer is refused for RELAYER_REVERT_COOLDOWN_MS.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import type { RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { cancelAuthorization } from './support/cancelAuthorization.ts'
import { type Answer, expectMoneySafe } from './support/ledger.ts'

let devnet: Devnet
let relayer: TestRelayer
const key = devnetAccounts.relayer.address

beforeAll(async () => {
  devnet = await startDevnet()
  relayer = await startTestRelayer(devnet)
}, 60_000)
afterAll(async () => {
  await devnet?.testClient.setAutomine(true).catch(() => {})
  await relayer?.stop()
  await devnet?.stop()
})

const answerOf = (request: RelayRequest, answer: { status: number; body: Record<string, unknown> }): Answer => ({ orderHash: request.orderHash as Hex, status: answer.status, body: answer.body })

test('an order cancelled ahead of the relayer in the same block: WOULD_REVERT naming the tx; the replay is refused without a broadcast; the consumer cools down', async () => {
  const fromBlock = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
  const warm = await signed(devnet, allocationOrder(devnet))
  const answers = [answerOf(warm, await relayer.post(warm))]
  expect(answers[0]!.status).toBe(200)

  await devnet.testClient.setAutomine(false)
  const request = await signed(devnet, allocationOrder(devnet))
  const first = relayer.post(request)
  const deadline = Date.now() + 5_000
  while ((await devnet.publicClient.getTransactionCount({ address: key, blockTag: 'pending' })) === (await devnet.publicClient.getTransactionCount({ address: key }))) {
    if (Date.now() > deadline) throw new Error('the relayer did not broadcast')
    await Bun.sleep(10)
  }
  await cancelAuthorization(devnet, request.orderHash as Hex)
  await devnet.testClient.mine({ blocks: 1 })
  await devnet.testClient.setAutomine(true)
  const reverted = await first
  answers.push(answerOf(request, reverted))
  const [, txHash, cancelTx] = String(reverted.body.message).match(/tx (0x[0-9a-f]{64}).* tx (0x[0-9a-f]{64})/) as unknown as [string, Hex, Hex]
  // Cancelled, not settled by anyone: only then is a new order the fix.
  expect({ status: reverted.status, body: reverted.body }).toEqual({
    status: 422,
    body: {
      ok: false,
      code: 'WOULD_REVERT',
      message: `reverted on chain after broadcast in tx ${txHash}: authorization used (the consumer cancelled this authorization in tx ${cancelTx}; nothing was settled); build a new order with a fresh nonce`,
    },
  })
  expect((await devnet.publicClient.getTransactionReceipt({ hash: txHash })).status).toBe('reverted')
  const nonce = await devnet.publicClient.getTransactionCount({ address: key })

  // Sent again: refused from the journal, no broadcast.
  const replay = await relayer.post(request)
  answers.push(answerOf(request, replay))
  expect({ status: replay.status, body: replay.body }).toEqual({
    status: 422,
    body: {
      ok: false,
      code: 'WOULD_REVERT',
      message: `not broadcast again: reverted on chain after broadcast in tx ${txHash}: authorization used (the consumer cancelled this authorization in tx ${cancelTx}; nothing was settled); build a new order with a fresh nonce`,
    },
  })
  expect(await (await fetch(`${relayer.url}/broker/${request.orderHash}`)).json()).toEqual({
    orderHash: request.orderHash,
    status: 'reverted',
    txHash,
    blockNumber: (await devnet.publicClient.getTransactionReceipt({ hash: txHash })).blockNumber.toString(),
    confirmations: 1,
    final: true,
  })

  // A fresh order from the same consumer: refused for the cool-down, no broadcast.
  const fresh = await signed(devnet, allocationOrder(devnet))
  const cooled = await relayer.post(fresh)
  answers.push(answerOf(fresh, cooled))
  expect(cooled.status).toBe(422)
  expect(cooled.body.code).toBe('WOULD_REVERT')
  const until = String(cooled.body.message).match(/^refused until (\S+):/)?.[1]
  expect(cooled.body.message).toBe(
    `refused until ${until}: an order from consumer ${devnetAccounts.consumer.address} passed simulation and reverted on chain in tx ${txHash}; ask the consumer to check its authorizations, then retry after that time`,
  )
  // The default cool-down is ten minutes.
  expect(Date.parse(until!) - Date.now()).toBeGreaterThan(590_000)
  expect(Date.parse(until!) - Date.now()).toBeLessThanOrEqual(600_000)
  expect(relayer.logger.lines).toContain(
    `warn: consumer ${devnetAccounts.consumer.address}: order ${request.orderHash} passed simulation and reverted on chain in tx ${txHash}; its orders are refused until ${until} (RELAYER_REVERT_COOLDOWN_MS)`,
  )
  expect(await devnet.publicClient.getTransactionCount({ address: key })).toBe(nonce)

  // The one revert this test made happen is the only one the key paid for.
  await expectMoneySafe(devnet, { key, fromBlock, settle: [warm.orderHash as Hex], answers, revertsMadeOnPurpose: 1 })
}, 30_000)
