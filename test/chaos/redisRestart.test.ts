// Redis restarts empty under load. Two replicas (own keys, own journals, one Redis),
// blocks every 2 s, orders sent to both replicas at once by clients that retry a 502
// until they get a final answer; Redis is SIGKILLed while orders are in flight and
// restarted empty. A second tx for an order would revert on a key's money, and an
// answer telling a client of a settled order to sign a new one invites it to pay
// twice. The replicas refuse new orders while the shared state is unavailable or being
// restored (502 saying so), re-publish their claims and outcomes from their journals,
// and take new orders again after the restore window: zero second txs, zero reverts,
// and every answer names the tx that settled its order.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Address, Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import type { RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { hasRedisServer, startRedis, type TestRedis } from '../../scripts/lib/index.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { type Answer, brokeredByOrder, noncesSettle, txsFrom } from './support/ledger.ts'

const keys = [devnetAccounts.relayer, devnetAccounts.secondRelayer]
const orders = 60

describe.skipIf(!hasRedisServer)('Redis SIGKILLed and restarted empty under load, two replicas', () => {
  let devnet: Devnet
  let redis: TestRedis
  let replicas: TestRelayer[] = []
  let fromBlock: bigint

  beforeAll(async () => {
    redis = await startRedis()
    devnet = await startDevnet()
    fromBlock = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
    for (const key of keys) {
      replicas.push(
        await startTestRelayer(devnet, {
          env: { RELAYER_PK: key.privateKey, RELAYER_REDIS_URL: redis.url, RELAYER_REDIS_RESTORE_MS: '2000', RELAYER_RECEIPT_TIMEOUT_MS: '20000', RELAYER_RECEIPT_POLL_MS: '50' },
        }),
      )
    }
    // Warm both (gas price, the adapter's gas limit, the chain clock).
    for (const replica of replicas) expect((await replica.post(await signed(devnet, allocationOrder(devnet)))).status).toBe(200)
    await devnet.testClient.setAutomine(false)
    await devnet.testClient.setIntervalMining({ interval: 2 })
  }, 90_000)
  afterAll(async () => {
    await devnet?.testClient.setIntervalMining({ interval: 0 }).catch(() => {})
    await devnet?.testClient.setAutomine(true).catch(() => {})
    for (const replica of replicas) await replica.stop()
    await devnet?.stop()
    await redis?.stop()
  }, 30_000)

  /**
   * One client: the order sent to both replicas at once, again at the next block while
   * both answer 502 (shared state unavailable, or no receipt yet), until an answer is final.
   */
  async function client(request: RelayRequest, answers: Answer[]): Promise<void> {
    const orderHash = request.orderHash as Hex
    const deadline = Date.now() + 90_000
    for (;;) {
      const block = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
      const got = await Promise.all(replicas.map((replica) => replica.post(request)))
      for (const answer of got) answers.push({ orderHash, status: answer.status, body: answer.body })
      if (got.some((answer) => answer.status !== 502)) return
      if (Date.now() > deadline) throw new Error(`order ${orderHash}: no final answer within 90 s; last: ${JSON.stringify(got.map((answer) => answer.body))}`)
      await waitFor(`a block after ${block} before retrying order ${orderHash}`, async () => (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) > block, 10_000, 100)
    }
  }
  const refusals = (answers: Answer[]) => answers.filter((answer) => /shared state \(Redis, RELAYER_REDIS_URL\)/.test(String(answer.body.message ?? ''))).length
  const pendingTxs = async () => (await devnet.publicClient.getBlock({ blockTag: 'pending' })).transactions.length

  test(`${orders} orders to both replicas at once, Redis killed with orders in flight and back empty: each settles once, no revert, every answer true`, async () => {
    const requests = await Promise.all(Array.from({ length: orders }, () => signed(devnet, allocationOrder(devnet))))
    const answers: Answer[] = []
    const clients: Promise<void>[] = []
    const send = (batch: RelayRequest[]) => {
      for (const request of batch) clients.push(client(request, answers))
    }
    // Half the orders first; Redis dies once some of them wait in the pool for a block.
    send(requests.slice(0, 30))
    await waitFor('10 orders broadcast and waiting for a block', async () => (await pendingTxs()) >= 10, 30_000, 10)
    await redis.kill()
    // A quarter sent while Redis is down.
    await waitFor('both replicas not ready (shared state unavailable)', async () => {
      const ready = await Promise.all(replicas.map(async (replica) => (await fetch(`${replica.url}/ready`)).status))
      return ready.every((status) => status === 503)
    }, 10_000)
    send(requests.slice(30, 45))
    await waitFor('orders refused while the shared state is unavailable', () => refusals(answers) >= 5, 30_000)
    // Back, empty; the last quarter sent at once, while the replicas find out and restore.
    await redis.restart()
    send(requests.slice(45))
    await Promise.all(clients)

    // Every replica found the state lost and said so.
    for (const replica of replicas) {
      expect(replica.logger.lines.some((line) => line.startsWith('warn: the shared state in Redis was lost'))).toBe(true)
    }
    await devnet.testClient.setIntervalMining({ interval: 0 })
    await devnet.testClient.mine({ blocks: 1 })
    await devnet.testClient.setAutomine(true)
    for (const key of keys) await noncesSettle(devnet, key.address as Address)

    const brokered = await brokeredByOrder(devnet)
    // Zero second txs: every order settled exactly once.
    for (const request of requests) {
      const orderHash = request.orderHash!.toLowerCase() as Hex
      expect({ orderHash, settledIn: brokered.get(orderHash)?.length ?? 0 }).toEqual({ orderHash, settledIn: 1 })
    }
    // Zero reverts, on either key.
    for (const key of keys) expect((await txsFrom(devnet, key.address as Address, fromBlock)).filter((tx) => tx.status !== 'success')).toEqual([])
    // Every answer true: a 200 names the settling tx; no order that settled is told to
    // sign a new one unless the answer names the tx that settled it.
    for (const answer of answers) {
      const settledIn = brokered.get(answer.orderHash.toLowerCase() as Hex)![0]
      const message = String(answer.body.message ?? '')
      if (answer.status === 200) expect({ orderHash: answer.orderHash, txHash: answer.body.txHash }).toEqual({ orderHash: answer.orderHash, txHash: settledIn })
      if (/(build|sign) a new order/.test(message)) expect(message).toContain(`already settled in tx ${settledIn}`)
      expect([200, 422, 502], `${answer.status} ${message}\n${replicas.map((replica) => replica.logger.lines.filter((line) => !/^(GET|POST) /.test(line)).join('\n')).join('\n---\n')}`).toContain(answer.status)
      if (answer.status === 422) expect(message).toBe(`would revert: authorization used (already settled in tx ${settledIn}); build a new order with a fresh nonce`)
    }
    // The outage was real: orders were refused while the shared state was not whole.
    expect(refusals(answers)).toBeGreaterThan(0)
    // Each order got its settlement from some replica.
    for (const request of requests) expect(answers.some((answer) => answer.orderHash === request.orderHash && answer.status === 200)).toBe(true)
  }, 180_000)
})
