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
import { waitFor } from '../helpers/waitFor.ts'
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

test('two processes on one key with separate journals: the one that meets the other\'s tx says so as an error and takes no orders (503, /ready failing) until the other is quiet; nothing reverts, every order settles exactly once', async () => {
  const key = devnetAccounts.relayer.address
  // Quiet for 3 s: then the relayer takes orders again (10 minutes by default).
  const env = { RELAYER_KEY_CONFLICT_QUIET_MS: '3000' }
  const a = await startTestRelayer(devnet, { env })
  const b = await startTestRelayer(devnet, { env })
  relayers.push(a, b)
  const fromBlock = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
  const requests: RelayRequest[] = []
  for (let i = 0; i < 20; i++) requests.push(await signed(devnet, allocationOrder(devnet)))
  const answers: Answer[] = []
  const postTo = async (relayer: TestRelayer, request: RelayRequest) => {
    const answer = await relayer.post(request)
    answers.push({ orderHash: request.orderHash as Hex, status: answer.status, body: answer.body })
    return answer
  }
  // One after another, alternately: each process counts nonces on its own, so they collide.
  const first: Awaited<ReturnType<typeof postTo>>[] = []
  for (const [i, request] of requests.entries()) first.push(await postTo(i % 2 === 0 ? a : b, request))
  const refused = first.filter((each) => each.status !== 200)
  expect(refused.length).toBeGreaterThan(0)
  for (const answer of refused) {
    expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 503, code: 'INSUFFICIENT_RELAYER_GAS' })
    expect(String(answer.body.message)).toMatch(/another process (is )?signing with (this relayer's|the same) key/)
  }
  const errors = [...a.logger.lines, ...b.logger.lines].filter((line) => line.startsWith("error: another process is signing with this relayer's key"))
  expect(errors.length).toBeGreaterThan(0)
  // The one that met the other: not ready, saying why; the same order sent to it is refused, never sent twice.
  const stopped = a.logger.lines.some((line) => line.startsWith('error: another process')) ? a : b
  const ready = await fetch(`${stopped.url}/ready`)
  expect(ready.status).toBe(503)
  expect(((await ready.json()) as { reason: string }).reason).toMatch(/^another process is signing with this relayer's key/)

  // The stopped one takes orders again once the other has been quiet; clients retry what did not settle there.
  await waitFor('the stopped relayer ready again', async () => (await fetch(`${stopped.url}/ready`)).status === 200, 15_000, 100)
  for (const [i, request] of requests.entries()) {
    if (first[i]!.status === 200) continue
    const retry = await postTo(i % 2 === 0 ? a : b, request)
    expect({ order: i, status: retry.status }).toEqual({ order: i, status: 200 })
  }
  await expectMoneySafe(devnet, { key, fromBlock, settle: requests.map((request) => request.orderHash as Hex), answers })
}, 90_000)
