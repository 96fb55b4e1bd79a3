// An error the relayer does not recognise, or a look-up that gets no answer, proves
// nothing about a broadcast: only the refusals docs/relayer-safety.md lists free a nonce.
// A provider that forwarded the tx and then answered -32603 "upstream timeout", with the
// look-up of its hash unanswered: the tx is kept as "may be pooled", its order settles
// once, the next order takes the next nonce (never the same one), and nothing reverts.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Address, Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { classifySendError } from '../../src/relayer/submitter/sendRaw.ts'
import { type Answer, expectMoneySafe } from '../chaos/support/ledger.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { startFlakyRpc } from './support/flakyRpc.ts'

let devnet: Devnet
let rpc: ReturnType<typeof startFlakyRpc>
let relayer: TestRelayer
const key = devnetAccounts.relayer.address as Address
let fromBlock: bigint
const answers: Answer[] = []

beforeAll(async () => {
  devnet = await startDevnet()
  rpc = startFlakyRpc(devnet.rpcUrl)
  relayer = await startTestRelayer(devnet, { env: { RELAYER_RPC_URL: rpc.url } })
  fromBlock = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
  const warm = await signed(devnet, allocationOrder(devnet))
  const answer = await relayer.post(warm)
  answers.push({ orderHash: warm.orderHash as Hex, status: answer.status, body: answer.body })
  expect(answer.status).toBe(200)
}, 60_000)
afterAll(async () => {
  await devnet?.testClient.setAutomine(true).catch(() => {})
  await relayer?.stop()
  rpc?.stop()
  await devnet?.stop()
})

const post = async (request: Awaited<ReturnType<typeof signed>>) => {
  const answer = await relayer.post(request)
  answers.push({ orderHash: request.orderHash as Hex, status: answer.status, body: answer.body })
  return answer
}

test('which send errors free a nonce: only those that prove the node did not take the tx', () => {
  const kinds = [
    'insufficient funds for gas * price + value',
    'nonce too low',
    'replacement transaction underpriced',
    'max fee per gas less than block base fee',
    'intrinsic gas too low',
    'exceeds block gas limit',
    'tx fee (1.20 ether) exceeds the configured cap (1.00 ether)',
    'transaction type not supported',
    'upstream timeout',
    'internal error',
    'request failed with status 500',
    'context deadline exceeded',
  ].map((message) => [message, classifySendError(message)])
  expect(kinds).toEqual([
    ['insufficient funds for gas * price + value', 'noFunds'],
    ['nonce too low', 'nonceTaken'],
    ['replacement transaction underpriced', 'nonceTaken'],
    ['max fee per gas less than block base fee', 'underpriced'],
    ['intrinsic gas too low', 'refused'],
    ['exceeds block gas limit', 'refused'],
    ['tx fee (1.20 ether) exceeds the configured cap (1.00 ether)', 'refused'],
    ['transaction type not supported', 'refused'],
    ['upstream timeout', 'unknown'],
    ['internal error', 'unknown'],
    ['request failed with status 500', 'unknown'],
    ['context deadline exceeded', 'unknown'],
  ])
})

test('a send forwarded then answered -32603 "upstream timeout", its look-up unanswered: kept as may-be-pooled, it settles once; the next order takes the next nonce', async () => {
  rpc.errorAfterForwarding('eth_sendRawTransaction', { code: -32603, message: 'upstream timeout' })
  rpc.fail('eth_getTransactionByHash', 'refuse')
  try {
    await devnet.testClient.setAutomine(false)
    const nonce = await devnet.publicClient.getTransactionCount({ address: key })
    const first = await signed(devnet, allocationOrder(devnet))
    const firstAnswer = post(first)
    await waitFor('the first tx pooled', async () => (await devnet.publicClient.getTransactionCount({ address: key, blockTag: 'pending' })) === nonce + 1)
    // The next order: signed at the next nonce, never at the first's (which is pooled).
    const second = await signed(devnet, allocationOrder(devnet))
    const secondAnswer = post(second)
    await waitFor('the second tx pooled', async () => (await devnet.publicClient.getTransactionCount({ address: key, blockTag: 'pending' })) === nonce + 2)
    await devnet.testClient.mine({ blocks: 1 })
    await devnet.testClient.setAutomine(true)
    const [a, b] = await Promise.all([firstAnswer, secondAnswer])
    expect([a.status, b.status]).toEqual([200, 200])
    const txs = await Promise.all([a, b].map((answer) => devnet.publicClient.getTransaction({ hash: answer.body.txHash as Hex })))
    expect(txs.map((tx) => tx.nonce)).toEqual([nonce, nonce + 1])
    expect(relayer.logger.lines.some((line) => /got no answer from the node and is not known to it|may or may not/.test(line))).toBe(true)
  } finally {
    rpc.heal()
  }
  expect(await devnet.publicClient.getTransactionCount({ address: key, blockTag: 'pending' })).toBe(await devnet.publicClient.getTransactionCount({ address: key }))
})

test('money: every order settled once, nothing reverted', async () => {
  await expectMoneySafe(devnet, { key, fromBlock, settle: answers.filter((a) => a.status === 200).map((a) => a.orderHash), answers })
})
