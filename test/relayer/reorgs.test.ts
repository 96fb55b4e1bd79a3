// A settled order is final only once its block is RELAYER_CONFIRMATIONS deep: until then
// a reorg may take its tx out of the chain. The relayer follows the chain by its block
// hashes; a block whose parent is not the one it read, or a head that went back, makes
// it look up every tx of the key above the fork point again. An order whose tx left the
// chain is pending again: its tx is sent again as signed (the same txHash), or, when the
// new chain made the order fail (its authorization cancelled), the nonce is filled and
// nothing else is sent for it. anvil_reorg and evm_revert stand in for the chain.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Address, Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import type { BrokerStatus, RelayRequest } from '../../src/wire/index.ts'
import { signedCancellation } from '../chaos/support/cancelAuthorization.ts'
import { type Answer, brokeredByOrder, expectMoneySafe, txsFrom } from '../chaos/support/ledger.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { createExposure } from './support/exposure.ts'
import { startWatchedRelayer, type WatchedRelayer } from './support/watchedRelayer.ts'

let devnet: Devnet
let relayer: WatchedRelayer
let fromBlock: bigint
const exposure = createExposure()
const key = devnetAccounts.relayer.address as Address
// Answers of orders that settle in the end (the cancelled one is checked on its own).
const answers: Answer[] = []

beforeAll(async () => {
  devnet = await startDevnet()
  relayer = await startWatchedRelayer(devnet, exposure, { env: { RELAYER_CONFIRMATIONS: '3' } })
  fromBlock = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
}, 60_000)
afterAll(async () => {
  await relayer?.stop()
  await devnet?.stop()
})

async function order(): Promise<RelayRequest & { orderHash: Hex }> {
  const request = await signed(devnet, allocationOrder(devnet, { feeBps: 50 }))
  exposure.request(request)
  return request as RelayRequest & { orderHash: Hex }
}

async function settle(request: RelayRequest & { orderHash: Hex }, keep = true) {
  const answer = await relayer.post(request)
  expect(answer.status).toBe(200)
  if (keep) answers.push({ orderHash: request.orderHash, status: answer.status, body: answer.body })
  const receipt = await devnet.publicClient.getTransactionReceipt({ hash: answer.body.txHash as Hex })
  return { txHash: answer.body.txHash as Hex, block: receipt.blockNumber }
}

async function status(orderHash: Hex): Promise<BrokerStatus> {
  const answer = await relayer.request('GET', `/broker/${orderHash}`)
  expect(answer.status).toBe(200)
  return answer.json as BrokerStatus
}

/** Replaces the last `depth` blocks with as many new ones holding `txs` (raw, at their index among the new blocks). */
async function reorg(depth: number, txs: Array<[Hex, number]> = []) {
  await devnet.testClient.request({ method: 'anvil_reorg' as never, params: [depth, txs] as never })
}

test('a settled order counts its confirmations, and is final once its block is RELAYER_CONFIRMATIONS deep', async () => {
  const request = await order()
  const { txHash, block } = await settle(request)
  const first = await status(request.orderHash)
  expect(first).toEqual({ orderHash: request.orderHash, status: 'settled', txHash, blockNumber: block.toString(), confirmations: 1, final: false })
  await devnet.testClient.mine({ blocks: 2 })
  await waitFor('the order final 3 blocks deep', async () => (await status(request.orderHash)).final === true, 10_000)
  expect(await status(request.orderHash)).toEqual({ orderHash: request.orderHash, status: 'settled', txHash, blockNumber: block.toString(), confirmations: 3, final: true })
}, 30_000)

test("a reorg takes a settled order's tx out of the chain: the order is pending again, its tx is sent again as signed, and it settles once with the same txHash", async () => {
  const request = await order()
  const { txHash, block } = await settle(request)
  await reorg(1)
  expect(await devnet.publicClient.getTransactionReceipt({ hash: txHash }).catch(() => null)).toBeNull()
  // The new chain grows: its next block does not follow the block the relayer read.
  await devnet.testClient.mine({ blocks: 1 })
  const warned = `warn: a reorg replaced the chain above block ${block - 1n}: 1 tx of the key left it (nonce ${relayer.relayer.context.journal.byOrder(request.orderHash)!.nonce}); their orders are pending again, to be sent again as signed or their nonces filled`
  await waitFor('the reorg seen', () => relayer.logger.lines.includes(warned), 10_000)
  await waitFor('the same tx mined again', async () => (await devnet.publicClient.getTransactionReceipt({ hash: txHash }).catch(() => null)) !== null, 10_000)
  await devnet.testClient.mine({ blocks: 3 })
  await waitFor('the order final again', async () => (await status(request.orderHash)).final === true, 10_000)
  const again = await status(request.orderHash)
  expect(again).toMatchObject({ status: 'settled', txHash, final: true })
  expect(BigInt(again.blockNumber!)).toBeGreaterThan(block)
}, 30_000)

test("a reorg puts the consumer's cancellation in place of the settlement: the order is not sent again, its nonce is filled", async () => {
  const request = await order()
  const { txHash } = await settle(request, false)
  const slot = relayer.relayer.context.journal.byOrder(request.orderHash)!
  await reorg(1, [[await signedCancellation(devnet, request.orderHash), 0]])
  await devnet.testClient.mine({ blocks: 1 })
  await waitFor('the nonce filled', () => relayer.relayer.context.journal.byOrder(request.orderHash)?.status === 'filled', 10_000)
  expect(relayer.relayer.context.journal.byOrder(request.orderHash)!.nonce).toBe(slot.nonce)
  expect((await brokeredByOrder(devnet)).get(request.orderHash.toLowerCase() as Hex)).toBeUndefined()
  expect(await devnet.publicClient.getTransactionReceipt({ hash: txHash }).catch(() => null)).toBeNull()
  expect((await status(request.orderHash)).status).toBe('unknown')
}, 30_000)

test('a head that goes back (a snapshot reverted) is a reorg too: the order is sent again and settles once', async () => {
  const snapshot = await devnet.testClient.snapshot()
  const request = await order()
  const { txHash, block } = await settle(request)
  await devnet.testClient.revert({ id: snapshot })
  expect(await devnet.publicClient.getBlockNumber({ cacheTime: 0 })).toBe(block - 1n)
  await waitFor('the same tx mined again', async () => (await devnet.publicClient.getTransactionReceipt({ hash: txHash }).catch(() => null)) !== null, 10_000)
  await devnet.testClient.mine({ blocks: 3 })
  await waitFor('the order final again', async () => (await status(request.orderHash)).final === true, 10_000)
  expect(await status(request.orderHash)).toMatchObject({ status: 'settled', txHash, final: true })
}, 30_000)

test('money: every order settled once with the txHash its client was given, nothing reverted, no secret shown', async () => {
  await expectMoneySafe(devnet, { key, fromBlock, settle: answers.map((a) => a.orderHash), answers })
  expect(exposure.leaks()).toEqual([])
  // The books count each settled order once: the reorged ones when they settled again, the cancelled one not at all.
  const books = relayer.relayer.context.economics.books.summary()
  expect(books.tokens.map(({ token, orders }) => ({ token: token.toLowerCase(), orders }))).toEqual([{ token: devnet.manifest.contracts.payToken.toLowerCase(), orders: answers.length }])
  // What the key spent is what its mined txs cost: the ones the reorgs took out are not counted.
  let spent = 0n
  for (const tx of await txsFrom(devnet, key, fromBlock)) {
    const receipt = await devnet.publicClient.getTransactionReceipt({ hash: tx.hash })
    spent += receipt.gasUsed * receipt.effectiveGasPrice
  }
  expect(books.gasSpentWei).toBe(spent)
}, 30_000)

