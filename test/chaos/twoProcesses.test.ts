// Two relayer processes on one gas key. On one journal the second refuses to start,
// naming the first. On separate journals (two machines, say) their nonces collide,
// which unnoticed answers orders "502 … may or may not have reached the node" when none
// had. Each relayer notices txs from its key that its journal does not know, says so
// in its log and in its answers, re-syncs, and every order settles exactly once.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { hostname } from 'node:os'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import type { RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { startRelayerProcess } from '../load/support/relayerProcess.ts'
import { type Answer, expectMoneySafe } from './support/ledger.ts'
import { scratchDir } from './support/process.ts'

let devnet: Devnet
const scratch = scratchDir()
const relayers: TestRelayer[] = []

beforeAll(async () => {
  devnet = await startDevnet()
}, 60_000)
afterAll(async () => {
  for (const each of relayers) await each.stop()
  await devnet?.stop()
  scratch.remove()
})

test('a second process on the same journal refuses to start, naming the first', async () => {
  const env = { RELAYER_RPC_URL: devnet.rpcUrl, RELAYER_DB: scratch.file('shared.sqlite') }
  const first = await startRelayerProcess(devnet, env)
  try {
    const refusal = await startRelayerProcess(devnet, env).then(
      async (second) => {
        await second.stop()
        return 'started'
      },
      (error: Error) => error.message,
    )
    expect(refusal).toContain(
      `order-relay relayer: RELAYER_DB ${scratch.file('shared.sqlite')} is in use by relayer process ${first.child.pid} on ${hostname()} (since `,
    )
    expect(refusal).toContain('); run one relayer process per gas key, or stop that one first')
    // The first one is unharmed.
    expect((await fetch(`${first.url}/info`)).status).toBe(200)
  } finally {
    expect(await first.stop()).toBe(0)
  }
}, 60_000)

test('two processes on one key with separate journals: collisions are detected and reported, and every order settles exactly once', async () => {
  const key = devnetAccounts.relayer.address
  const a = await startTestRelayer(devnet)
  const b = await startTestRelayer(devnet)
  relayers.push(a, b)
  const fromBlock = (await devnet.publicClient.getBlockNumber()) + 1n
  const requests: RelayRequest[] = []
  for (let i = 0; i < 30; i++) requests.push(await signed(devnet, allocationOrder(devnet)))
  const answers: Answer[] = []
  const postTo = async (relayer: TestRelayer, request: RelayRequest) => {
    const answer = await relayer.post(request)
    answers.push({ orderHash: request.orderHash as Hex, status: answer.status, body: answer.body })
    return answer
  }
  const first = await Promise.all(requests.map((request, i) => postTo(i % 2 === 0 ? a : b, request)))

  // Whoever lost a nonce says why, without blaming the RPC.
  for (const answer of first.filter((each) => each.status !== 200)) {
    expect(answer.body.code).toBe('UPSTREAM_RPC')
    expect(String(answer.body.message)).toMatch(/another process|did not send/)
  }
  const detected = [...a.logger.lines, ...b.logger.lines].filter((line) =>
    /did not send \(another process using the same key\?\)|is not in its journal: another process is signing with the same key|not in this relayer's journal: another process is signing with the same key/.test(line),
  )
  expect(detected.length).toBeGreaterThan(0)

  // Clients retry what did not settle, on relayer A.
  const deadline = Date.now() + 30_000
  for (const [i, request] of requests.entries()) {
    let answer = first[i]!
    while (answer.status !== 200) {
      if (Date.now() > deadline) throw new Error(`order ${i} did not settle: ${JSON.stringify(answer.body)}`)
      answer = await postTo(a, request)
    }
  }
  await expectMoneySafe(devnet, { key, fromBlock, settle: requests.map((request) => request.orderHash as Hex), answers })
}, 90_000)
