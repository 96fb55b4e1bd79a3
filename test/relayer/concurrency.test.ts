// One gas key under concurrency (DESIGN.md "Relayer"): 100 orders at once all settle
// with distinct nonces; the same orderHash twice at once settles once; a failed
// broadcast re-syncs the nonce so the orders behind it (and later ones) still settle.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Hex } from 'viem'
import { brokeredEvent } from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import type { RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { createExposure } from './support/exposure.ts'
import { startFlakyRpc } from './support/flakyRpc.ts'
import { accessLinePattern, startWatchedRelayer, type WatchedRelayer } from './support/watchedRelayer.ts'

let devnet: Devnet
let relayer: WatchedRelayer
const relayers: WatchedRelayer[] = []
const exposure = createExposure()
const relayerAddress = devnetAccounts.relayer.address

beforeAll(async () => {
  devnet = await startDevnet({ vaults: [{ vaultId: 1n, slots: 10_000 }] })
  relayer = await startWatchedRelayer(devnet, exposure)
  relayers.push(relayer)
}, 60_000)
afterAll(async () => {
  for (const each of relayers) await each.stop()
  await devnet?.stop()
})

async function orders(count: number): Promise<RelayRequest[]> {
  const requests = await Promise.all(Array.from({ length: count }, () => signed(devnet, allocationOrder(devnet))))
  for (const request of requests) exposure.request(request)
  return requests
}

/** The stall rule's warning: a ready tx at the key's next nonce, and no block mined meanwhile. */
const anvilStall = /^warn: tx 0x[0-9a-f]{64} has waited in the node's pool at the key's next nonce for [\d.]+ s while the node mined no block for [\d.]+ s .*; replaced it by tx 0x[0-9a-f]{64} at a higher fee$/

const brokeredLogs = (orderHash: Hex) =>
  devnet.publicClient.getLogs({ address: devnet.manifest.contracts.broker, event: brokeredEvent, args: { orderHash }, fromBlock: 0n })

test('100 concurrent orders from one consumer all settle, each in its own tx with its own nonce', async () => {
  const requests = await orders(100)
  const nonceBefore = await devnet.publicClient.getTransactionCount({ address: relayerAddress })
  const linesBefore = relayer.logger.lines.length

  const answers = await Promise.all(requests.map((request) => relayer.post(request)))

  expect(answers.map((answer) => answer.status)).toEqual(requests.map(() => 200))
  expect(answers.map((answer) => answer.body.orderHash)).toEqual(requests.map((request) => request.orderHash))
  const txHashes = answers.map((answer) => answer.body.txHash as Hex)
  expect(new Set(txHashes).size).toBe(100)
  const txs = await Promise.all(txHashes.map((hash) => devnet.publicClient.getTransaction({ hash })))
  const nonces = txs.map((tx) => tx.nonce).sort((a, b) => a - b)
  expect(nonces).toEqual(Array.from({ length: 100 }, (_, i) => nonceBefore + i))
  for (const tx of txs) expect(tx.from).toBe(relayerAddress.toLowerCase() as Hex)
  expect(await devnet.publicClient.getTransactionCount({ address: relayerAddress })).toBe(nonceBefore + 100)
  // Exactly one Brokered event per order, and not one warning or error on the way but
  // the one a node fault earns: anvil's automine now and then stops mining with a ready
  // tx at the key's next nonce (foundry-rs/foundry#10122), and the relayer says so when
  // it replaces that tx (the nonce checks above hold either way).
  for (const request of requests.slice(0, 10)) expect(await brokeredLogs(request.orderHash as Hex)).toHaveLength(1)
  const said = relayer.logger.lines.slice(linesBefore).filter((line) => !line.startsWith('POST /broker 200 OK'))
  expect(said.filter((line) => !anvilStall.test(line))).toEqual([])
}, 60_000)

describe('the same order twice at once settles once', () => {
  test('both answers are 200 with the same txHash; one Brokered event; one transaction', async () => {
    const [request] = await orders(1)
    const nonceBefore = await devnet.publicClient.getTransactionCount({ address: relayerAddress })
    const [a, b] = await Promise.all([relayer.post(request), relayer.post(request)])
    expect([a.status, b.status]).toEqual([200, 200])
    expect(a.body).toEqual(b.body)
    expect(a.body.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await brokeredLogs(request!.orderHash as Hex)).toHaveLength(1)
    expect(await devnet.publicClient.getTransactionCount({ address: relayerAddress })).toBe(nonceBefore + 1)
  })

  test('also when one copy leaves out the optional orderHash (the relayer recomputes it)', async () => {
    const [request] = await orders(1)
    const { orderHash: _left, ...without } = request!
    const [a, b, c] = await Promise.all([relayer.post(request), relayer.post(without), relayer.post(request)])
    expect([a.status, b.status, c.status]).toEqual([200, 200, 200])
    expect(new Set([a.body.txHash, b.body.txHash, c.body.txHash]).size).toBe(1)
    expect(await brokeredLogs(request!.orderHash as Hex)).toHaveLength(1)
  })
})

describe('a failed broadcast re-syncs the nonce', () => {
  test('gas key drained (setBalance 0): 503; balance restored: the next order settles', async () => {
    const balance = await devnet.publicClient.getBalance({ address: relayerAddress })
    await devnet.testClient.setBalance({ address: relayerAddress, value: 0n })
    const [first, second] = await orders(2)
    const drained = await relayer.post(first)
    expect({ status: drained.status, body: drained.body }).toEqual({
      status: 503,
      body: { ok: false, code: 'INSUFFICIENT_RELAYER_GAS', message: 'relayer gas account cannot pay for gas; try another relayer or run your own' },
    })
    await devnet.testClient.setBalance({ address: relayerAddress, value: balance })
    expect((await relayer.post(second)).status).toBe(200)
    // The refused order was never spent: it settles too.
    expect((await relayer.post(first)).status).toBe(200)
  })

  test("the account's nonce moved behind the relayer's back (a direct tx from its key): the order is refused 503, not signed again; an error says another process signs with the key; orders settle again once it is quiet", async () => {
    // A relayer of its own, on the lender's key, quiet for 2 s (10 minutes by default).
    const own = await startWatchedRelayer(devnet, exposure, { env: { RELAYER_PK: devnetAccounts.lender.privateKey, RELAYER_KEY_CONFLICT_QUIET_MS: '2000' } })
    relayers.push(own)
    const [warm] = await orders(1)
    expect((await own.post(warm!)).status).toBe(200)
    const wallet = devnet.wallet('lender')
    for (let i = 0; i < 2; i++) {
      const hash = await wallet.sendTransaction({ to: devnetAccounts.lender.address, value: 0n })
      await devnet.publicClient.waitForTransactionReceipt({ hash })
    }
    const nonce = await devnet.publicClient.getTransactionCount({ address: devnetAccounts.lender.address })
    const [request] = await orders(1)
    const refused = await own.post(request!)
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 503, code: 'INSUFFICIENT_RELAYER_GAS' })
    expect(String(refused.body.message)).toMatch(/another process signing with the same key/)
    expect(await devnet.publicClient.getTransactionCount({ address: devnetAccounts.lender.address, blockTag: 'pending' })).toBe(nonce)
    expect(own.logger.lines).toContainEqual(expect.stringMatching(/^error: another process is signing with this relayer's key: the node refused nonce \d+ as used by a transaction this relayer did not send;/))
    await waitFor('the relayer quiet again', async () => (await own.request('GET', '/ready')).status === 200, 10_000, 100)
    const settled = await own.post(request!)
    expect(settled.status).toBe(200)
  })

  test('one broadcast request failing in a burst: its signed txs stay in the journal and are sent again, so every order settles, and so does the next burst', async () => {
    const rpc = startFlakyRpc(devnet.rpcUrl)
    try {
      const flaky = await startWatchedRelayer(devnet, exposure, { env: { RELAYER_RPC_URL: rpc.url, RELAYER_PK: devnetAccounts.secondRelayer.privateKey } })
      relayers.push(flaky)
      const [warm] = await orders(1)
      expect((await flaky.post(warm)).status).toBe(200)

      const burst = await orders(20)
      // The first broadcast request of the burst (one tx, or a batch of them) is lost
      // (sent once: no transport retry); the txs broadcast after it wait behind the gap.
      rpc.failNext('eth_sendRawTransaction', 1)
      let sent = 0
      const pending = burst.map(async (request) => {
        const answer = await flaky.post(request)
        sent++
        return answer
      })
      const answers = await Promise.all(pending)
      expect(sent).toBe(20)
      // The node never got it and the relayer could not know: the nonce keeper sent
      // the same signed tx again, so that order settled too (in its own tx, once).
      expect(answers.map((answer) => answer.status)).toEqual(burst.map(() => 200))
      expect(new Set(answers.map((answer) => answer.body.txHash)).size).toBe(20)
      expect(flaky.logger.lines).toContainEqual(expect.stringMatching(/^warn: tx 0x[0-9a-f]{64} was no longer known to the node; sent it again as signed$/))

      const next = await orders(10)
      const later = await Promise.all(next.map((request) => flaky.post(request)))
      expect(later.map((answer) => answer.status)).toEqual(next.map(() => 200))
    } finally {
      rpc.stop()
    }
  }, 30_000)
})

test('no key or signature in any log line or body; one access line per request', () => {
  expect(exposure.counts.secrets).toBeGreaterThan(200)
  expect(exposure.leaks()).toEqual([])
  for (const each of relayers) {
    const log = each.accessLog()
    expect(log.access).toEqual(log.expected)
    for (const line of log.access) expect(line).toMatch(accessLinePattern)
  }
})
