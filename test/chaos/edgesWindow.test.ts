// Foresight (docs/relayer-edges.md) against a real anvil: an idle chain whose head is old
// does not make an expired order look open; a not-yet-valid order is refused before
// any gas with from when it is valid (Circle's strict `now > validAfter`); the
// simulation runs at `pending`, so an order that the relayer's own pooled tx will
// make revert is refused instead of broadcast.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { allocationOrder, signed, vaultParams } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'

let devnet: Devnet
let relayer: TestRelayer
const relayerAddress = devnetAccounts.relayer.address
const answered: { orderHash: string; status: number; txHash?: Hex }[] = []

beforeAll(async () => {
  devnet = await startDevnet({ vaults: [{ vaultId: 1n, slots: 1000 }, { vaultId: 2n, slots: 1 }] })
  relayer = await startTestRelayer(devnet)
}, 60_000)
afterAll(async () => {
  await devnet?.testClient.setAutomine(true).catch(() => {})
  await relayer?.stop()
  await devnet?.stop()
})

async function post(request: Awaited<ReturnType<typeof signed>>) {
  const answer = await relayer.post(request)
  answered.push({ orderHash: request.orderHash as string, status: answer.status, txHash: answer.body.txHash as Hex | undefined })
  return answer
}

const nonces = async () => ({
  latest: await devnet.publicClient.getTransactionCount({ address: relayerAddress }),
  pending: await devnet.publicClient.getTransactionCount({ address: relayerAddress, blockTag: 'pending' }),
})

const wallSeconds = () => BigInt(Math.floor(Date.now() / 1000))

test('an idle chain (no block for >10 s) past validBefore: AUTH_EXPIRED, no tx sent', async () => {
  // One block now, then nothing: anvil mines only when a tx comes.
  await devnet.testClient.mine({ blocks: 1 })
  const head = await devnet.publicClient.getBlock({ blockTag: 'latest' })
  const validBefore = head.timestamp + 5n
  const request = await signed(devnet, allocationOrder(devnet), { validBefore })
  await waitFor('the wall clock to pass validBefore by 10 s', () => wallSeconds() >= validBefore + 10n, 30_000)
  expect((await devnet.publicClient.getBlock({ blockTag: 'latest' })).number).toBe(head.number)
  const before = await nonces()

  const { status, body } = await post(request)
  expect({ status, code: body.code }).toEqual({ status: 422, code: 'AUTH_EXPIRED' })
  expect(String(body.message)).toMatch(new RegExp(`^authorization window has passed \\(validBefore ${validBefore}, (chain time \\d+|this relayer's clock \\d+; chain time \\d+)\\); re-sign with a fresh window$`))
  // The time that decided: the chain's estimate, or this host's clock when the chain's is behind it.
  const decidedAt = BigInt(/, (?:chain time|this relayer's clock) (\d+)/.exec(String(body.message))![1]!)
  expect(decidedAt).toBeGreaterThanOrEqual(validBefore + 10n)
  expect(await nonces()).toEqual(before)
  expect((await devnet.publicClient.getBlock({ blockTag: 'latest' })).number).toBe(head.number)
}, 60_000)

test('not yet valid (strict, as USDC): refused before any gas with from when it is valid; the same order settles once it is', async () => {
  const validAfter = wallSeconds() + 2n
  const request = await signed(devnet, allocationOrder(devnet), { validAfter })
  const before = await nonces()
  const early = await post(request)
  expect({ status: early.status, code: early.body.code }).toEqual({ status: 422, code: 'WOULD_REVERT' })
  expect(String(early.body.message)).toMatch(
    new RegExp(
      `^would revert: authorization not yet valid \\(validAfter ${validAfter}, chain time \\d+\\); valid from ${validAfter + 1n} \\(unix seconds, in \\d+ s\\): send the same order again then, no need to re-sign$`,
    ),
  )
  expect(await nonces()).toEqual(before)

  await waitFor('the window to open', () => wallSeconds() > validAfter + 1n)
  const later = await post(request)
  expect({ status: later.status, code: later.body.code }).toEqual({ status: 200, code: undefined })
  const receipt = await devnet.publicClient.getTransactionReceipt({ hash: later.body.txHash as Hex })
  expect(receipt.status).toBe('success')
  expect(receipt.blockNumber).toBeGreaterThan(0n)
  const block = await devnet.publicClient.getBlock({ blockNumber: receipt.blockNumber })
  expect(block.timestamp).toBeGreaterThan(validAfter)
}, 60_000)

test('the simulation runs at pending: an order its own pooled tx will sell out is refused, not broadcast', async () => {
  await devnet.testClient.setAutomine(false)
  const before = await nonces()
  const first = await signed(devnet, allocationOrder(devnet, { params: vaultParams(2n) }))
  const firstAnswer = post(first)
  await waitFor('the first order in the pool', async () => (await nonces()).pending === before.pending + 1)

  const second = await signed(devnet, allocationOrder(devnet, { params: vaultParams(2n) }))
  const { status, body } = await post(second)
  expect({ status, body }).toEqual({ status: 422, body: { ok: false, code: 'WOULD_REVERT', message: 'would revert: AllocationSoldOut(vaultId=2)', revert: { contract: 'AllocationAdapter', name: 'AllocationSoldOut', args: { vaultId: '2' }, selector: expect.stringMatching(/^0x[0-9a-f]{8}$/), data: expect.stringMatching(/^0x[0-9a-f]+$/) } } })
  expect((await nonces()).pending).toBe(before.pending + 1)

  await devnet.testClient.mine({ blocks: 1 })
  await devnet.testClient.setAutomine(true)
  const settled = await firstAnswer
  expect(settled.status).toBe(200)
  expect(await nonces()).toEqual({ latest: before.latest + 1, pending: before.pending + 1 })
}, 60_000)

test('money safety: every 200 settled exactly once, no tx from the relayer key reverted, nothing pending', async () => {
  const ok = answered.filter((a) => a.status === 200)
  expect(ok.length).toBe(2)
  expect(new Set(ok.map((a) => a.orderHash)).size).toBe(ok.length)
  const { latest, pending } = await nonces()
  expect(latest).toBe(pending)
  // Every tx the key ever sent succeeded (the devnet's relayer key sends only orders).
  const head = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
  let sent = 0
  for (let n = 0n; n <= head; n++) {
    const block = await devnet.publicClient.getBlock({ blockNumber: n, includeTransactions: true })
    for (const tx of block.transactions) {
      if (tx.from.toLowerCase() !== relayerAddress.toLowerCase()) continue
      sent++
      expect((await devnet.publicClient.getTransactionReceipt({ hash: tx.hash })).status).toBe('success')
    }
  }
  expect(sent).toBe(latest)
  expect(sent).toBe(ok.length)
}, 60_000)
