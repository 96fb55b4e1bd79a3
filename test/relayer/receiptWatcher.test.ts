// Receipts are found by one watcher for all pending txs, once per new block: the
// block's tx hashes (asked with the head in one batch), then, for a block holding the
// key's txs, their logs by block hash; never a receipt poll per tx to tell an outcome.
// Each mined tx's receipt is read once, after its answer, for what it cost the key. A
// node without eth_getLogs by block hash gets per-tx receipt lookups instead.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { cancelAuthorization } from '../chaos/support/cancelAuthorization.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { startFlakyRpc } from './support/flakyRpc.ts'

let devnet: Devnet
const relayers: TestRelayer[] = []
const rpcs: ReturnType<typeof startFlakyRpc>[] = []

beforeAll(async () => {
  devnet = await startDevnet()
}, 60_000)
afterAll(async () => {
  for (const each of relayers) await each.stop()
  for (const each of rpcs) each.stop()
  await devnet?.stop()
})

async function relayerBehind(pk: `0x${string}`, env: Record<string, string> = {}) {
  const rpc = startFlakyRpc(devnet.rpcUrl)
  rpcs.push(rpc)
  const relayer = await startTestRelayer(devnet, { env: { RELAYER_RPC_URL: rpc.url, RELAYER_PK: pk, ...env } })
  relayers.push(relayer)
  return { rpc, relayer }
}

const count = (seen: string[], method: string) => seen.filter((each) => each === method).length

/** A fresh gas key holding 1 ETH, for a test whose relayer needs a key of its own. */
async function fundedKey(): Promise<Hex> {
  const pk = generatePrivateKey()
  const funding = await devnet.wallet('deployer').sendTransaction({ to: privateKeyToAccount(pk).address, value: 10n ** 18n })
  await devnet.publicClient.waitForTransactionReceipt({ hash: funding })
  return pk
}

test('ten orders at once: their outcomes come from the blocks\' tx hashes and logs; each receipt is read once, afterwards, for its cost', async () => {
  const { rpc, relayer } = await relayerBehind(devnetAccounts.relayer.privateKey)
  const requests = await Promise.all(Array.from({ length: 10 }, () => signed(devnet, allocationOrder(devnet))))
  const answers = await Promise.all(requests.map((request) => relayer.post(request)))
  expect(answers.map((answer) => answer.status)).toEqual(requests.map(() => 200))
  // Every success is proven by its logs; its receipt is read once for what it cost, never to tell it.
  const journal = relayer.relayer.context.journal
  await waitFor('every cost in the journal', () => requests.every((request) => journal.byOrder(request.orderHash as Hex)?.spentWei !== null))
  expect(count(rpc.seen, 'eth_getTransactionReceipt')).toBe(10)
  expect(count(rpc.seen, 'eth_getBlockReceipts')).toBe(0)
  for (const answer of answers) {
    const receipt = await devnet.publicClient.getTransactionReceipt({ hash: answer.body.txHash as Hex })
    expect(journal.byOrder(answer.body.orderHash as Hex)?.spentWei).toBe(receipt.gasUsed * receipt.effectiveGasPrice)
  }
  expect(count(rpc.seen, 'eth_sendRawTransaction')).toBe(10)
  // Automine puts each tx in its own block: the logs are asked once per block holding one.
  expect(count(rpc.seen, 'eth_getLogs')).toBeGreaterThanOrEqual(1)
  expect(count(rpc.seen, 'eth_getLogs')).toBeLessThanOrEqual(10)
  // A look asks for the head and the next block's tx hashes in one request: one round
  // trip when a block came; a block not mined yet is null, and cheap.
  const looks = rpc.batchMethods.filter((methods) => methods.includes('eth_blockNumber'))
  expect(looks.length).toBeGreaterThanOrEqual(1)
  for (const methods of looks) expect(methods).toEqual(['eth_blockNumber', 'eth_getBlockByNumber'])
  // The answers carry what the logs say: the Brokered event of each order.
  for (const [i, answer] of answers.entries()) expect(answer.body.brokered).toMatchObject({ orderHash: requests[i]!.orderHash })
})

test('heads pushed over the WebSocket: a block\'s logs ride in the same batch as its tx hashes, one round trip per look', async () => {
  const pk = await fundedKey()
  const { rpc, relayer } = await relayerBehind(pk, { RELAYER_WS_URL: devnet.manifest.wsUrl! })
  // The first order's block is pushed: from then on the feed is live, and a broadcast
  // leaves the looking to the pushed heads (polling is only the safety net).
  expect((await relayer.post(await signed(devnet, allocationOrder(devnet)))).status).toBe(200)
  const from = rpc.batchMethods.length
  for (let i = 0; i < 5; i++) {
    const answer = await relayer.post(await signed(devnet, allocationOrder(devnet)))
    expect(answer.status).toBe(200)
  }
  // Each order's block is its own (automine); the look at a pushed block asked for its
  // hashes and its logs together. A safety poll may beat a push now and then: it asks
  // for the logs by hash, a second round trip, so not every look is counted here.
  const withLogs = rpc.batchMethods.slice(from).filter((methods) => methods.join() === 'eth_blockNumber,eth_getBlockByNumber,eth_getLogs')
  expect(withLogs.length).toBeGreaterThanOrEqual(3)
  // Receipts only for the costs, one per tx at most.
  expect(count(rpc.seen, 'eth_getTransactionReceipt')).toBeLessThanOrEqual(6)
})

test('a node without eth_getLogs by block hash: receipts are looked up per pending tx, and orders settle', async () => {
  const { rpc, relayer } = await relayerBehind(devnetAccounts.secondRelayer.privateKey)
  rpc.fail('eth_getLogs', 'unsupported')
  for (let i = 0; i < 3; i++) {
    const answer = await relayer.post(await signed(devnet, allocationOrder(devnet)))
    expect(answer.status).toBe(200)
  }
  expect(relayer.logger.lines).toContain('the RPC has no eth_getLogs by block hash (or no eth_getBlockByNumber); looking receipts up per pending tx')
  expect(count(rpc.seen, 'eth_getLogs')).toBe(1)
  expect(count(rpc.seen, 'eth_getTransactionReceipt')).toBeGreaterThanOrEqual(3)
})

test('a block with a success and a revert from the key: the success is told by its logs, the revert by its receipt, the only one read', async () => {
  const key = devnetAccounts.spare.address
  const { rpc, relayer } = await relayerBehind(devnetAccounts.spare.privateKey)
  expect((await relayer.post(await signed(devnet, allocationOrder(devnet)))).status).toBe(200)
  await devnet.testClient.setAutomine(false)
  let answers: Array<Awaited<ReturnType<TestRelayer['post']>>>
  let from: number
  const [settles, cancelled] = [await signed(devnet, allocationOrder(devnet)), await signed(devnet, allocationOrder(devnet))]
  try {
    const posted = Promise.all([relayer.post(settles), relayer.post(cancelled)])
    const mined = await devnet.publicClient.getTransactionCount({ address: key })
    await waitFor('both txs broadcast', async () => (await devnet.publicClient.getTransactionCount({ address: key, blockTag: 'pending' })) === mined + 2, 10_000)
    // The consumer cancels the second order's authorization ahead of the key's txs (a higher tip).
    await cancelAuthorization(devnet, cancelled.orderHash as Hex)
    from = rpc.seen.length
    await devnet.testClient.mine({ blocks: 1 })
    answers = await posted
  } finally {
    await devnet.testClient.setAutomine(true)
  }
  expect(answers[0]!.status).toBe(200)
  expect(answers[1]!.status).toBe(422)
  expect(String(answers[1]!.body.message)).toStartWith('reverted on chain after broadcast in tx ')
  // The revert's receipt, read in the look; the success's, read after it for its cost.
  const journal = relayer.relayer.context.journal
  await waitFor('both costs in the journal', () => [settles, cancelled].every((request) => typeof journal.byOrder(request.orderHash as Hex)?.spentWei === 'bigint'))
  const seen = rpc.seen.slice(from)
  expect(count(seen, 'eth_getTransactionReceipt')).toBe(2)
  expect(count(seen, 'eth_getBlockReceipts')).toBe(0)
})

test('gas counters on: the receipts of successes are read after their answers; a failed read is tried again', async () => {
  const metricsPort = await freePort()
  // A key of its own: the devnet's relayer keys each serve a test above.
  const pk = await fundedKey()
  const { rpc, relayer } = await relayerBehind(pk, { RELAYER_METRICS_PORT: String(metricsPort) })
  const metrics = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
  rpc.fail('eth_getTransactionReceipt')
  try {
    // The order settles without any receipt: its logs tell it.
    expect((await relayer.post(await signed(devnet, allocationOrder(devnet)))).status).toBe(200)
    await waitFor('a failed gas read', () => rpc.seen.includes('eth_getTransactionReceipt'))
    expect(await metrics()).not.toContain('order_relay_relayer_transactions_total{status="success"}')
  } finally {
    rpc.heal()
  }
  await waitFor('the success counted once the RPC answers again', async () => (await metrics()).includes('order_relay_relayer_transactions_total{status="success"} 1'))
  expect(await metrics()).toMatch(/order_relay_relayer_gas_spent_wei_total\{status="success"\} [1-9]/)
})
