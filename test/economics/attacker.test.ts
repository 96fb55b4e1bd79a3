// An attacker's trial, from outside: its own worthless token and its own adapter, and dust
// of the devnet's real pay token through that adapter, cannot make the gas key pay. Every
// such order is refused 402 FEE_BELOW_FLOOR before anything is signed (the unvalued token
// before any simulation), the answer names what was wrong and what would pass, and an
// ordinary devnet order still settles.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Address, getAddress, type Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet, usdc } from '../../src/devnet/index.ts'
import { expectMoneySafe, type Answer } from '../chaos/support/ledger.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { type RpcCall, startFlakyRpc } from '../relayer/support/flakyRpc.ts'
import { attackerAdapter, attackerOrder, fundedConsumer, nonces } from './support.ts'

let devnet: Devnet
let relayer: TestRelayer
let rpc: ReturnType<typeof startFlakyRpc>
const key = devnetAccounts.relayer.address as Address
let fromBlock: bigint
const answers: Answer[] = []

beforeAll(async () => {
  devnet = await startDevnet()
  rpc = startFlakyRpc(devnet.rpcUrl)
  relayer = await startTestRelayer(devnet, { env: { RELAYER_RPC_URL: rpc.url } })
  fromBlock = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
}, 60_000)
afterAll(async () => {
  await relayer?.stop()
  rpc?.stop()
  await devnet?.stop()
})

const brokerCalls = (calls: RpcCall[]) => calls.filter((call) => call.method === 'eth_call' || call.method === 'eth_estimateGas').length

test('20 orders in a worthless token through the attacker\'s own adapter (amount 1, feeBps 10000): all 402, naming the token and the accepted ones; not one eth_call, not one tx', async () => {
  const { payToken, adapter } = await attackerAdapter(devnet)
  const before = await nonces(devnet, key)
  const callsBefore = brokerCalls(rpc.calls)
  for (let i = 0; i < 20; i++) {
    const consumer = await fundedConsumer(devnet, payToken, 1n, 'spare')
    const request = await attackerOrder(devnet, consumer, { adapter, payToken, amount: 1n, feeBps: 10_000 })
    const answer = await relayer.post(request)
    answers.push({ orderHash: request.orderHash as Hex, status: answer.status, body: answer.body })
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 402,
      body: {
        ok: false,
        code: 'FEE_BELOW_FLOOR',
        message: `pay token ${payToken} is not accepted by this relayer (this relayer has no price for it); it accepts ${getAddress(devnet.manifest.contracts.payToken)} (USDC); pay in an accepted token or choose another relayer (GET /info)`,
      },
    })
  }
  expect(await nonces(devnet, key)).toEqual(before)
  // Refused before any simulation or gas estimate.
  expect(brokerCalls(rpc.calls)).toBe(callsBefore)
})

test('dust of the devnet\'s own pay token through the attacker\'s adapter (amount 1, feeBps 10000): 402 naming the fee\'s worth, the gas cost and the fee that would pass; no tx', async () => {
  const payToken = devnet.manifest.contracts.payToken as Address
  const { adapter } = await attackerAdapter(devnet, { payToken, price: 1n })
  const before = await nonces(devnet, key)
  const consumer = await fundedConsumer(devnet, payToken, 10n * usdc)
  const request = await attackerOrder(devnet, consumer, { adapter, payToken, amount: 1n, feeBps: 10_000 })
  const answer = await relayer.post(request)
  answers.push({ orderHash: request.orderHash as Hex, status: answer.status, body: answer.body })
  expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 402, code: 'FEE_BELOW_FLOOR' })
  const message = String(answer.body.message)
  // 1 base unit at 0.01 native per token is 10^10 wei; the tx costs ~10^14.
  const parts = message.match(
    /^the fee does not pay for the gas: 1 of (0x[0-9a-fA-F]{40}) \(USDC\) \(feeBps 10000 of amount 1\) is worth 10000000000 wei, and this order's tx costs about (\d+) wei \((\d+) gas at (\d+) wei\) plus this relayer's margin of 1000 bps \(RELAYER_MIN_MARGIN_BPS\); a fee of at least (\d+) would pass, more than this amount can carry \(feeBps is at most 10000\); raise feeBps or choose another relayer \(GET \/info\)$/,
  )
  expect(parts, message).not.toBeNull()
  const [, token, costWei, gas, price, minFee] = parts!
  expect(token).toBe(getAddress(payToken))
  expect(BigInt(costWei!)).toBe(BigInt(gas!) * BigInt(price!))
  // The fee that would pass is worth the cost plus the margin (0.01 native per whole token: 10^10 wei per base unit).
  expect(BigInt(minFee!) * 10n ** 10n).toBeGreaterThanOrEqual((BigInt(costWei!) * 11_000n) / 10_000n)
  expect((BigInt(minFee!) - 1n) * 10n ** 10n).toBeLessThan((BigInt(costWei!) * 11_000n + 9_999n) / 10_000n)
  // The gas is what the simulation measured: the order's real tx, not its padded limit.
  expect(BigInt(gas!)).toBeGreaterThan(60_000n)
  expect(BigInt(gas!)).toBeLessThan(200_000n)
  expect(await nonces(devnet, key)).toEqual(before)
})

test('a fee below the order\'s gas at the devnet price, through the devnet\'s own adapter: 402; the same order with the fee it names settles', async () => {
  const low = await signed(devnet, allocationOrder(devnet, { feeBps: 1 }))
  const refused = await relayer.post(low)
  answers.push({ orderHash: low.orderHash as Hex, status: refused.status, body: refused.body })
  expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 402, code: 'FEE_BELOW_FLOOR' })
  const needed = Number(String(refused.body.message).match(/\(feeBps (\d+) of this amount\) would pass/)![1])
  expect(needed).toBeGreaterThan(1)
  const enough = await signed(devnet, allocationOrder(devnet, { feeBps: needed + 5 }))
  const settled = await relayer.post(enough)
  answers.push({ orderHash: enough.orderHash as Hex, status: settled.status, body: settled.body })
  expect(settled.status).toBe(200)
})

test('an ordinary devnet order settles, and the journal keeps what it earned and cost', async () => {
  const request = await signed(devnet, allocationOrder(devnet))
  const answer = await relayer.post(request)
  answers.push({ orderHash: request.orderHash as Hex, status: answer.status, body: answer.body })
  expect(answer.status).toBe(200)
  const receipt = await devnet.publicClient.getTransactionReceipt({ hash: answer.body.txHash as Hex })
  const journal = relayer.relayer.context.journal
  await waitFor('the settled order\'s cost in the journal', () => typeof journal.byOrder(request.orderHash as Hex)?.spentWei === 'bigint')
  expect(journal.byOrder(request.orderHash as Hex)).toMatchObject({
    status: 'settled',
    feeAmount: 50_000n,
    feeValueWei: 50_000n * 10n ** 10n,
    spentWei: receipt.gasUsed * receipt.effectiveGasPrice,
  })
})

test('money: nothing from the attacker settled, nothing reverted, every settled order once', async () => {
  await expectMoneySafe(devnet, { key, fromBlock, settle: answers.filter((a) => a.status === 200).map((a) => a.orderHash), answers })
})
