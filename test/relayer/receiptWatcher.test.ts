// Receipts are found by one watcher for all pending txs, once per new block
// (eth_getBlockReceipts, asked with the head in one batch), not by a receipt poll per
// tx; a node without eth_getBlockReceipts gets per-tx receipt lookups instead.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
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

async function relayerBehind(pk: `0x${string}`) {
  const rpc = startFlakyRpc(devnet.rpcUrl)
  rpcs.push(rpc)
  const relayer = await startTestRelayer(devnet, { env: { RELAYER_RPC_URL: rpc.url, RELAYER_PK: pk } })
  relayers.push(relayer)
  return { rpc, relayer }
}

const count = (seen: string[], method: string) => seen.filter((each) => each === method).length

test('ten orders at once: their receipts come from block receipts, with no per-tx receipt call', async () => {
  const { rpc, relayer } = await relayerBehind(devnetAccounts.relayer.privateKey)
  const requests = await Promise.all(Array.from({ length: 10 }, () => signed(devnet, allocationOrder(devnet))))
  const answers = await Promise.all(requests.map((request) => relayer.post(request)))
  expect(answers.map((answer) => answer.status)).toEqual(requests.map(() => 200))
  expect(count(rpc.seen, 'eth_getTransactionReceipt')).toBe(0)
  expect(count(rpc.seen, 'eth_sendRawTransaction')).toBe(10)
  // Automine puts each tx in its own block: at most one look per block.
  expect(count(rpc.seen, 'eth_getBlockReceipts')).toBeGreaterThanOrEqual(1)
  // A look asks for the head and the next block's receipts in one request: one round trip
  // when a block came; the receipts of a block not mined yet are null, and cheap.
  const looks = rpc.batchMethods.filter((methods) => methods.includes('eth_blockNumber'))
  expect(looks.length).toBeGreaterThanOrEqual(1)
  for (const methods of looks) expect(methods).toEqual(['eth_blockNumber', 'eth_getBlockReceipts'])
  expect(count(rpc.seen, 'eth_getBlockReceipts')).toBeLessThanOrEqual(count(rpc.seen, 'eth_blockNumber') + 10)
})

test('a node without eth_getBlockReceipts: receipts are looked up per pending tx, and orders settle', async () => {
  const { rpc, relayer } = await relayerBehind(devnetAccounts.secondRelayer.privateKey)
  rpc.fail('eth_getBlockReceipts', 'unsupported')
  for (let i = 0; i < 3; i++) {
    const answer = await relayer.post(await signed(devnet, allocationOrder(devnet)))
    expect(answer.status).toBe(200)
  }
  expect(relayer.logger.lines).toContain("the RPC has no eth_getBlockReceipts; looking receipts up per pending tx")
  expect(count(rpc.seen, 'eth_getBlockReceipts')).toBe(1)
  expect(count(rpc.seen, 'eth_getTransactionReceipt')).toBeGreaterThanOrEqual(3)
})
