// A replica dies holding claims: replica A, a real process, takes
// orders and broadcasts them, then is SIGKILLed while they wait in the pool, its
// orderHash claims still in Redis. The same orders sent to replica B:
// - once the chain settles them, B answers 200 naming A's txs, from the chain
//   (the token's authorizationState, the Broker's Brokered logs), without waiting
//   for A's claims to expire, and without a tx of its own;
// - while no block comes, A's claims expire (they are leases only A renewed), and B
//   answers the truth it can see, 502 naming A's pending tx (A published it while
//   it held the claim), never a second broadcast; once mined, 200.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Address, Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import type { RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { hasRedisServer, startRedis, type TestRedis } from '../../scripts/lib/index.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { startRelayerProcess } from '../load/support/relayerProcess.ts'
import { type Answer, brokeredByOrder, expectMoneySafe, txsFrom } from './support/ledger.ts'
import { post } from './support/process.ts'

const a = devnetAccounts.relayer
const b = devnetAccounts.secondRelayer

describe.skipIf(!hasRedisServer)('a replica SIGKILLed holding claims', () => {
  let devnet: Devnet
  let redis: TestRedis
  let replicaB: TestRelayer
  let fromBlock: bigint
  const answers: Answer[] = []
  const settle: Hex[] = []

  beforeAll(async () => {
    redis = await startRedis()
    devnet = await startDevnet()
    fromBlock = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
    replicaB = await startTestRelayer(devnet, { env: { RELAYER_PK: b.privateKey, RELAYER_REDIS_URL: redis.url, RELAYER_REDIS_RESTORE_MS: '500', RELAYER_RECEIPT_TIMEOUT_MS: '30000' } })
  }, 60_000)
  afterAll(async () => {
    await devnet?.testClient.setAutomine(true).catch(() => {})
    await replicaB?.stop()
    await devnet?.stop()
    await redis?.stop()
  }, 30_000)

  /** A's txs in the node's pool. */
  const pooled = async (): Promise<Hex[]> => {
    const content = await devnet.testClient.getTxpoolContent()
    const mine = Object.entries(content.pending).find(([address]) => address.toLowerCase() === a.address.toLowerCase())?.[1] ?? {}
    return Object.values(mine).map((tx) => tx.hash)
  }
  const claimHeld = async (orderHash: Hex) => {
    const prefix = `order-relay:${devnet.chainId}:${devnet.manifest.contracts.broker.toLowerCase()}`
    const client = new Bun.RedisClient(redis.url)
    try {
      return (await client.exists(`${prefix}:claim:${orderHash.toLowerCase()}`)) === true
    } finally {
      client.close()
    }
  }

  /** Replica A as its own process; `count` orders sent to it and pooled (automine off); then A is SIGKILLed. */
  async function ordersLeftByDeadReplica(count: number): Promise<{ requests: RelayRequest[]; inPool: Hex[] }> {
    const replicaA = await startRelayerProcess(devnet, {
      RELAYER_RPC_URL: devnet.rpcUrl,
      RELAYER_REDIS_URL: redis.url,
      RELAYER_REDIS_RESTORE_MS: '500',
      RELAYER_RECEIPT_TIMEOUT_MS: '60000',
      RELAYER_RECEIPT_POLL_MS: '50',
    })
    try {
      const warm = await signed(devnet, allocationOrder(devnet))
      const warmed = await post(replicaA.url, warm)
      expect(warmed.status).toBe(200)
      answers.push({ orderHash: warm.orderHash as Hex, ...warmed })
      settle.push(warm.orderHash as Hex)
      const requests = await Promise.all(Array.from({ length: count }, () => signed(devnet, allocationOrder(devnet))))
      await devnet.testClient.setAutomine(false)
      const cut = requests.map((request) => post(replicaA.url, request))
      await waitFor(`${count} txs of replica A in the pool`, async () => (await pooled()).length === count, 15_000)
      // A holds every claim while it waits for the receipts.
      for (const request of requests) expect(await claimHeld(request.orderHash as Hex)).toBe(true)
      // Its heartbeat publishes the pending tx of each order it holds (at most 500 ms on).
      await waitFor("A's pending txs published", async () => {
        const statuses = await Promise.all(requests.map(async (request) => ((await (await fetch(`${replicaB.url}/broker/${request.orderHash}`)).json()) as { status: string }).status))
        return statuses.every((status) => status === 'pending')
      }, 10_000)
      const inPool = await pooled()
      replicaA.child.kill('SIGKILL')
      await replicaA.child.exited
      expect((await Promise.all(cut)).map((answer) => answer.status)).toEqual(requests.map(() => 0))
      for (const request of requests) settle.push(request.orderHash as Hex)
      return { requests, inPool }
    } finally {
      await replicaA.stop()
    }
  }

  test('blocks come: B answers 200 naming the dead replica\'s txs, from the chain, before its claims expire; B sends nothing', async () => {
    const { requests, inPool } = await ordersLeftByDeadReplica(4)
    const bNonce = await devnet.publicClient.getTransactionCount({ address: b.address, blockTag: 'pending' })
    const sent = requests.map((request) => replicaB.post(request))
    // B is waiting on A's claims; the chain settles A's txs now.
    await devnet.testClient.mine({ blocks: 1 })
    const got = await Promise.all(sent)
    for (const [i, answer] of got.entries()) answers.push({ orderHash: requests[i]!.orderHash as Hex, status: answer.status, body: answer.body })
    expect(got.map((answer) => answer.status)).toEqual(requests.map(() => 200))
    expect(new Set(got.map((answer) => answer.body.txHash))).toEqual(new Set(inPool))
    // Answered from the chain while A's claims were still held: nobody waited for them to expire.
    expect((await Promise.all(requests.map((request) => claimHeld(request.orderHash as Hex)))).some(Boolean)).toBe(true)
    expect(await devnet.publicClient.getTransactionCount({ address: b.address, blockTag: 'pending' })).toBe(bNonce)
    await devnet.testClient.setAutomine(true)
  }, 90_000)

  test('no block comes: A\'s claims expire within the lease; B names A\'s pending tx (no second broadcast), then 200 once it is mined', async () => {
    const { requests, inPool } = await ordersLeftByDeadReplica(2)
    const bNonce = await devnet.publicClient.getTransactionCount({ address: b.address, blockTag: 'pending' })
    const waited = await Promise.all(requests.map((request) => replicaB.post(request)))
    for (const [i, answer] of waited.entries()) answers.push({ orderHash: requests[i]!.orderHash as Hex, status: answer.status, body: answer.body })
    for (const answer of waited) {
      expect(answer.status).toBe(502)
      const txHash = String(answer.body.message).match(/^broadcast by another relayer replica as tx (0x[0-9a-f]{64}), still without a receipt; it may still settle, in that tx or one replacing it: follow GET \/broker\/0x[0-9a-f]{64} until it says settled or reverted/)?.[1]
      expect(inPool).toContain(txHash as Hex)
    }
    // The claims are gone (expired, nobody renewed them): B took them, answered, released.
    for (const request of requests) expect(await claimHeld(request.orderHash as Hex)).toBe(false)
    expect(await devnet.publicClient.getTransactionCount({ address: b.address, blockTag: 'pending' })).toBe(bNonce)
    await devnet.testClient.mine({ blocks: 1 })
    await devnet.testClient.setAutomine(true)
    const mined = await Promise.all(requests.map((request) => replicaB.post(request)))
    for (const [i, answer] of mined.entries()) answers.push({ orderHash: requests[i]!.orderHash as Hex, status: answer.status, body: answer.body })
    expect(mined.map((answer) => answer.status)).toEqual(requests.map(() => 200))
    expect(new Set(mined.map((answer) => answer.body.txHash))).toEqual(new Set(inPool))
  }, 90_000)

  test('money-safety: every order settled once, no tx of either key reverted, every answer true', async () => {
    await expectMoneySafe(devnet, { key: a.address as Address, fromBlock, settle, answers })
    expect((await txsFrom(devnet, b.address as Address, fromBlock)).filter((tx) => tx.status !== 'success')).toEqual([])
    const brokered = await brokeredByOrder(devnet)
    for (const orderHash of settle) expect(brokered.get(orderHash.toLowerCase() as Hex)).toHaveLength(1)
  }, 60_000)
})
