// A broadcast whose answer is lost, and txs the node loses after the relayer gave up
// waiting. Before: viem retried the send, took "already known" for nonce drift and
// signed the order again at the next nonce (a second, reverting tx); and a receipt
// wait that gave up left the nonce to no one, so after the node lost its pool every
// later order queued behind the gap. Now the hash is looked up before anything is
// signed again, and the nonce keeper sends lost txs again whether or not anyone waits.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import type { RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { startAnswerLosingProxy } from './support/answerLosingProxy.ts'
import { type Answer, expectMoneySafe } from './support/ledger.ts'

let devnet: Devnet
const relayers: TestRelayer[] = []

beforeAll(async () => {
  devnet = await startDevnet()
}, 60_000)
afterAll(async () => {
  await devnet?.testClient.setAutomine(true).catch(() => {})
  for (const each of relayers) await each.stop()
  await devnet?.stop()
})

const order = () => signed(devnet, allocationOrder(devnet))
const answerOf = (request: RelayRequest, answer: { status: number; body: Record<string, unknown> }): Answer => ({ orderHash: request.orderHash as Hex, status: answer.status, body: answer.body })

test('the answer to one eth_sendRawTransaction is lost on the way back: the hash is looked up, the order settles in that tx, nothing is signed twice', async () => {
  const proxy = await startAnswerLosingProxy(devnet.rpcUrl)
  const key = devnetAccounts.secondRelayer.address
  const relayer = await startTestRelayer(devnet, { env: { RELAYER_RPC_URL: proxy.url, RELAYER_PK: devnetAccounts.secondRelayer.privateKey } })
  relayers.push(relayer)
  try {
    const fromBlock = (await devnet.publicClient.getBlockNumber()) + 1n
    const warm = await order()
    const answers = [answerOf(warm, await relayer.post(warm))]
    const nonce = await devnet.publicClient.getTransactionCount({ address: key })
    const request = await order()
    proxy.arm()
    const answer = await relayer.post(request)
    answers.push(answerOf(request, answer))
    expect(proxy.lost).toBe(1)
    expect(answer.status).toBe(200)
    // One nonce used: the tx whose answer was lost, and no second one.
    expect(await devnet.publicClient.getTransactionCount({ address: key })).toBe(nonce + 1)
    const next = await order()
    answers.push(answerOf(next, await relayer.post(next)))
    expect(answers.map((each) => each.status)).toEqual([200, 200, 200])
    await expectMoneySafe(devnet, { key, fromBlock, settle: [warm, request, next].map((each) => each.orderHash as Hex), answers })
  } finally {
    await proxy.stop()
  }
}, 30_000)

test('receipt waits give up, then the node drops its whole pool: the nonce keeper sends every tx again as signed with no client waiting; retries get 200', async () => {
  const key = devnetAccounts.spare.address
  const relayer = await startTestRelayer(devnet, { env: { RELAYER_PK: devnetAccounts.spare.privateKey, RELAYER_RECEIPT_TIMEOUT_MS: '400' } })
  relayers.push(relayer)
  const fromBlock = (await devnet.publicClient.getBlockNumber()) + 1n
  const warm = await order()
  const answers = [answerOf(warm, await relayer.post(warm))]
  await devnet.testClient.setAutomine(false)
  const requests = [await order(), await order(), await order()]
  const gaveUp = await Promise.all(requests.map((request) => relayer.post(request)))
  expect(gaveUp.map((answer) => answer.body.code)).toEqual(['UPSTREAM_RPC', 'UPSTREAM_RPC', 'UPSTREAM_RPC'])
  const lost = gaveUp.map((answer) => String(answer.body.message).match(/tx (0x[0-9a-f]{64})/)![1] as Hex)
  answers.push(...requests.map((request, i) => answerOf(request, gaveUp[i]!)))
  await devnet.testClient.request({ method: 'anvil_dropAllTransactions' } as never)
  expect((await devnet.testClient.getTxpoolContent()).pending).toEqual({})
  await devnet.testClient.setAutomine(true)

  // Nobody asks: the keeper finds the three gone and sends them again, in nonce order.
  const deadline = Date.now() + 15_000
  const status = async (request: RelayRequest) => (await (await fetch(`${relayer.url}/broker/${request.orderHash}`)).json()) as { status: string; txHash: Hex }
  while (!(await Promise.all(requests.map(status))).every((each) => each.status === 'settled')) {
    if (Date.now() > deadline) throw new Error(`not all settled:\n${relayer.logger.lines.join('\n')}`)
    await Bun.sleep(50)
  }
  expect((await Promise.all(requests.map(status))).map((each) => each.txHash)).toEqual(lost)
  for (const hash of lost) expect(relayer.logger.lines).toContain(`warn: tx ${hash} was no longer known to the node; sent it again as signed`)

  // The clients retry: each gets the settlement it missed, with the original txHash.
  const retries = await Promise.all(requests.map((request) => relayer.post(request)))
  expect(retries.map((answer) => [answer.status, answer.body.txHash])).toEqual(lost.map((hash) => [200, hash]))
  answers.push(...requests.map((request, i) => answerOf(request, retries[i]!)))
  const next = await order()
  answers.push(answerOf(next, await relayer.post(next)))
  expect(answers.at(-1)!.status).toBe(200)
  await expectMoneySafe(devnet, { key, fromBlock, settle: [warm, ...requests, next].map((each) => each.orderHash as Hex), answers })
}, 40_000)
