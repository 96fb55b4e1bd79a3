// A broadcast whose answer is lost, and txs the node loses after the relayer gave up
// waiting. The hazards: a retried send that takes "already known" for nonce drift signs
// the order again at the next nonce (a second, reverting tx); a receipt wait that gives
// up leaves the nonce to no one, so after the node loses its pool every later order
// queues behind the gap. The hash is looked up before anything is signed again, and
// the nonce keeper sends lost txs again whether or not anyone waits.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import type { RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { startAnswerLosingProxy } from './support/answerLosingProxy.ts'
import { cancelAuthorization } from './support/cancelAuthorization.ts'
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
    const fromBlock = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
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
  const fromBlock = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
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
  expect({ status: answers.at(-1)!.status, body: answers.at(-1)!.body }).toMatchObject({ status: 200 })
  await expectMoneySafe(devnet, { key, fromBlock, settle: [warm, ...requests, next].map((each) => each.orderHash as Hex), answers })
}, 40_000)

test('a dropped tx whose order can no longer settle (the consumer cancelled it meanwhile): its nonce is filled with a 0-value self-transfer, nothing reverts, the next order settles', async () => {
  const key = devnetAccounts.relayer.address
  const relayer = await startTestRelayer(devnet, { env: { RELAYER_RECEIPT_TIMEOUT_MS: '400' } })
  relayers.push(relayer)
  const fromBlock = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
  const warm = await order()
  const answers = [answerOf(warm, await relayer.post(warm))]
  await devnet.testClient.setAutomine(false)
  const request = await order()
  const gaveUp = await relayer.post(request)
  answers.push(answerOf(request, gaveUp))
  const lost = String(gaveUp.body.message).match(/tx (0x[0-9a-f]{64})/)![1] as Hex
  const nonce = (await devnet.publicClient.getTransaction({ hash: lost })).nonce
  await devnet.testClient.dropTransaction({ hash: lost })
  await devnet.testClient.setAutomine(true)
  const cancelTx = await cancelAuthorization(devnet, request.orderHash as Hex)

  // Sending it again would revert and cost gas: the keeper fills its nonce instead.
  const deadline = Date.now() + 15_000
  const fill = /^warn: tx (0x[0-9a-f]{64}) was dropped by the node and its order can no longer settle \(authorization used\); filled nonce (\d+) with a 0-value transfer, tx (0x[0-9a-f]{64})$/
  let line: RegExpMatchArray | null | undefined
  while (!(line = relayer.logger.lines.map((each) => each.match(fill)).find(Boolean))) {
    if (Date.now() > deadline) throw new Error(`no fill:\n${relayer.logger.lines.join('\n')}`)
    await Bun.sleep(50)
  }
  expect([line[1], line[2]]).toEqual([lost, String(nonce)])
  const filler = await devnet.publicClient.waitForTransactionReceipt({ hash: line[3] as Hex, pollingInterval: 20 })
  const fillerTx = await devnet.publicClient.getTransaction({ hash: line[3] as Hex })
  expect({ status: filler.status, to: fillerTx.to, value: fillerTx.value, nonce: fillerTx.nonce }).toEqual({ status: 'success', to: key.toLowerCase() as Hex, value: 0n, nonce })

  // Once the filler is seen, the order is nobody's: unknown.
  const statusOf = async () => ((await (await fetch(`${relayer.url}/broker/${request.orderHash}`)).json()) as { status: string }).status
  while ((await statusOf()) !== 'unknown') {
    if (Date.now() > deadline) throw new Error('the filled slot was never resolved')
    await Bun.sleep(20)
  }
  // The client retries: the order cannot settle, and the answer says so without a broadcast.
  const retry = await relayer.post(request)
  answers.push(answerOf(request, retry))
  expect({ status: retry.status, body: retry.body }).toEqual({
    status: 422,
    body: {
      ok: false,
      code: 'WOULD_REVERT',
      message: `would revert: authorization used (the consumer cancelled this authorization in tx ${cancelTx}; nothing was settled); build a new order with a fresh nonce`,
    },
  })
  // No on-chain revert happened, so the consumer is not cooling down.
  const next = await order()
  answers.push(answerOf(next, await relayer.post(next)))
  expect({ status: answers.at(-1)!.status, body: answers.at(-1)!.body }).toMatchObject({ status: 200 })
  await expectMoneySafe(devnet, { key, fromBlock, settle: [warm, next].map((each) => each.orderHash as Hex), answers })
}, 40_000)
