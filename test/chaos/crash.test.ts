// The relayer process killed (`kill -9`) with 20 txs in the node's pool, restarted at
// once on the same journal while blocks are mined every second, and every client
// retrying. Without the journal all 20 retries would be broadcast again and revert on
// chain ("authorization used"), paid by the key, and each client would be told its
// settled order reverted. The restarted relayer finds the 20 pending txs in its
// journal, watches them, and each retry shares its tx's outcome: 200, same txHash.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import type { RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startRelayerProcess } from '../load/support/relayerProcess.ts'
import { type Answer, expectMoneySafe } from './support/ledger.ts'
import { post, scratchDir } from './support/process.ts'

let devnet: Devnet
const scratch = scratchDir()
const key = devnetAccounts.relayer.address

beforeAll(async () => {
  devnet = await startDevnet()
}, 60_000)
afterAll(async () => {
  await devnet?.stop()
  scratch.remove()
})

/** The key's txs in the node's pool. */
async function pooled(): Promise<Hex[]> {
  const content = await devnet.testClient.getTxpoolContent()
  const mine = Object.entries(content.pending).find(([address]) => address.toLowerCase() === key.toLowerCase())?.[1] ?? {}
  return Object.values(mine).map((tx) => tx.hash)
}

test('kill -9 with 20 txs pending, restart on the same journal, clients retry: every order settles once, every retry gets its 200', async () => {
  const env = { RELAYER_RPC_URL: devnet.rpcUrl, RELAYER_DB: scratch.file('journal.sqlite'), RELAYER_RECEIPT_TIMEOUT_MS: '5000', RELAYER_RECEIPT_POLL_MS: '100' }
  const fromBlock = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
  const first = await startRelayerProcess(devnet, env)
  const requests: RelayRequest[] = []
  for (let i = 0; i < 20; i++) requests.push(await signed(devnet, allocationOrder(devnet)))
  // Warm the relayer (chain time, fees, gas limit), then stop mining.
  expect((await post(first.url, await signed(devnet, allocationOrder(devnet)))).status).toBe(200)
  await devnet.testClient.setAutomine(false)

  const cut = requests.map((request) => post(first.url, request))
  const deadline = Date.now() + 15_000
  while ((await pooled()).length < 20) {
    if (Date.now() > deadline) throw new Error(`expected 20 pooled txs, got ${(await pooled()).length}:\n${first.output}`)
    await Bun.sleep(20)
  }
  const inPool = await pooled()
  first.child.kill('SIGKILL')
  await first.child.exited
  expect((await Promise.all(cut)).map((answer) => answer.status)).toEqual(requests.map(() => 0))

  // Blocks every second from now on; the relayer comes back on the same journal.
  await devnet.testClient.setIntervalMining({ interval: 1 })
  const second = await startRelayerProcess(devnet, env)
  try {
    const retries = await Promise.all(requests.map((request) => post(second.url, request)))
    const answers: Answer[] = retries.map((answer, i) => ({ orderHash: requests[i]!.orderHash as Hex, ...answer }))
    expect(retries.map((answer) => answer.status)).toEqual(requests.map(() => 200))
    expect(new Set(retries.map((answer) => answer.body.txHash))).toEqual(new Set(inPool))
    expect(second.output).toContain('watching 20 pending txs left by the last run')

    // A replay now is the spec's replay answer, naming the settling tx; nothing is sent.
    const replay = await post(second.url, requests[0])
    expect(replay).toEqual({
      status: 422,
      body: { ok: false, code: 'WOULD_REVERT', message: `would revert: authorization used (already settled in tx ${retries[0]!.body.txHash}); build a new order with a fresh nonce` },
    })
    answers.push({ orderHash: requests[0]!.orderHash as Hex, ...replay })
    await expectMoneySafe(devnet, { key, fromBlock, settle: requests.map((request) => request.orderHash as Hex), answers })
  } finally {
    await devnet.testClient.setIntervalMining({ interval: 0 })
    await devnet.testClient.setAutomine(true)
    await second.stop()
  }
}, 90_000)
