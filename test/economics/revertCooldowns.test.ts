// Reverts cool down where they come from. An adapter whose orders pass
// simulation and then revert on chain (TrapAdapter, armed by the test in the same block,
// ahead of the relayer's tx) escapes the consumer cool-down with a fresh consumer per
// order; after RELAYER_REVERT_COOLDOWN_MAX such reverts the adapter itself is refused for
// the cool-down. The pay token, which did nothing wrong, keeps settling orders elsewhere.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Address, encodeFunctionData, getAddress, type Hex, parseGwei } from 'viem'
import { trapAdapterAbi, trapAdapterBytecode } from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, startDevnet, usdc } from '../../src/devnet/index.ts'
import { type Answer, expectMoneySafe } from '../chaos/support/ledger.ts'
import { allocationOrder, freshNonce, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { deploy, write } from '../relayer/support/chain.ts'
import { fundedConsumer, nonces } from './support.ts'

let devnet: Devnet
let relayer: TestRelayer
let trap: Address
const key = devnetAccounts.relayer.address as Address
let fromBlock: bigint
const answers: Answer[] = []

beforeAll(async () => {
  devnet = await startDevnet()
  trap = getAddress(await deploy(devnet, trapAdapterAbi, trapAdapterBytecode))
  relayer = await startTestRelayer(devnet)
  fromBlock = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
}, 60_000)
afterAll(async () => {
  await devnet?.testClient.setAutomine(true).catch(() => {})
  await relayer?.stop()
  await devnet?.stop()
})

/** An order from a fresh consumer through the trap adapter, paid in the devnet's token. */
async function trapOrder() {
  const consumer = await fundedConsumer(devnet, devnet.manifest.contracts.payToken as Address, 100n * usdc)
  return signed(
    devnet,
    { ...allocationOrder(devnet), consumer: consumer.address, adapter: trap, params: '0x', nonce: freshNonce().toString() },
    { account: consumer },
  )
}

/** Posts `request` with mining off, arms the trap ahead of the relayer's tx in the next block, mines it, and disarms. */
async function revertOnChain(request: Awaited<ReturnType<typeof trapOrder>>) {
  await devnet.testClient.setAutomine(false)
  try {
    const before = await nonces(devnet, key)
    const answer = relayer.post(request)
    await waitFor('the order pooled', async () => (await nonces(devnet, key)).pending > before.pending)
    // A higher tip: mined ahead of the relayer's tx in the same block.
    await devnet.wallet('deployer').sendTransaction({
      to: trap,
      data: encodeFunctionData({ abi: trapAdapterAbi, functionName: 'setArmed', args: [true] }),
      maxPriorityFeePerGas: parseGwei('50'),
      maxFeePerGas: parseGwei('100'),
    })
    await devnet.testClient.mine({ blocks: 1 })
    return await answer
  } finally {
    await devnet.testClient.setAutomine(true)
    await write(devnet, 'deployer', { address: trap, abi: trapAdapterAbi, functionName: 'setArmed', args: [false] })
  }
}

test('three fresh consumers through one adapter whose orders revert on chain: each paid revert named; then the adapter is refused for the cool-down, with no simulation and no tx', async () => {
  for (let i = 0; i < 3; i++) {
    const request = await trapOrder()
    const answer = await revertOnChain(request)
    answers.push({ orderHash: request.orderHash as Hex, status: answer.status, body: answer.body })
    expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 422, code: 'WOULD_REVERT' })
    expect(String(answer.body.message)).toStartWith('reverted on chain after broadcast in tx ')
  }
  expect(relayer.logger.lines).toContainEqual(
    expect.stringMatching(new RegExp(`^warn: adapter ${trap}: 3 orders through it passed simulation and reverted on chain within 600 s; its orders are refused until \\S+ \\(RELAYER_REVERT_COOLDOWN_MAX\\)$`, 'i')),
  )
  // A fourth fresh consumer: refused before anything is spent.
  const before = await nonces(devnet, key)
  const request = await trapOrder()
  const refused = await relayer.post(request)
  answers.push({ orderHash: request.orderHash as Hex, status: refused.status, body: refused.body })
  expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 422, code: 'WOULD_REVERT' })
  expect(String(refused.body.message)).toMatch(
    new RegExp(`^refused until \\S+: orders through adapter ${trap} passed simulation and reverted on chain 3 times within 600 s \\(the latest in tx 0x[0-9a-f]{64}\\); this relayer does not pay for them again before then \\(RELAYER_REVERT_COOLDOWN_MAX\\); retry after that time or choose another relayer$`, 'i'),
  )
  expect(await nonces(devnet, key)).toEqual(before)
})

test('the pay token those orders used did nothing wrong: orders in it through the devnet\'s adapter still settle', async () => {
  const request = await signed(devnet, allocationOrder(devnet))
  const answer = await relayer.post(request)
  answers.push({ orderHash: request.orderHash as Hex, status: answer.status, body: answer.body })
  expect(answer.status).toBe(200)
})

test('money: the three reverts were made on purpose; nothing else reverted, nothing settled twice', async () => {
  await expectMoneySafe(devnet, { key, fromBlock, settle: answers.filter((a) => a.status === 200).map((a) => a.orderHash), answers, revertsMadeOnPurpose: 3 })
})
