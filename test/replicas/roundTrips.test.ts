// What the shared state costs in Redis round trips (docs/scaling.md, "Round trips"),
// counted by the replicas themselves (order_relay_relayer_shared_state_round_trips_total):
// an order alone costs three calls (its claim, reading its outcome; its signed tx
// announced before the broadcast; its release, publishing its outcome), nothing else on
// the happy path; orders asking at once share calls, so a batch of eight claims and
// releases in two calls in all, its claims fenced by the epoch in the same call.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Address, Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { createRedisClaims, createSharedRedis, type RoundTripPurpose } from '../../src/relayer/replicas/index.ts'
import { silentLogger } from '../../src/shared/index.ts'
import { hasRedisServer, redisServerPath, startRedis, type TestRedis } from '../../scripts/lib/index.ts'
import { brokeredByOrder, txsFrom } from '../chaos/support/ledger.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'

if (!hasRedisServer) {
  console.log(`test/replicas/roundTrips.test.ts: skipping the round-trip tests: ${redisServerPath} is absent (install Debian's package: apt-get install -y redis-server)`)
}

/** The round trips a replica counted, by purpose, from its /metrics text. */
async function roundTrips(replica: TestRelayer): Promise<Partial<Record<RoundTripPurpose, number>>> {
  const text = await replica.relayer.operations.registry.metrics()
  const counts: Partial<Record<RoundTripPurpose, number>> = {}
  for (const match of text.matchAll(/^order_relay_relayer_shared_state_round_trips_total\{purpose="([a-z-]+)"\} (\d+)$/gm)) counts[match[1] as RoundTripPurpose] = Number(match[2])
  return counts
}

describe.skipIf(!hasRedisServer)('Redis round trips of relayer replicas', () => {
  let devnet: Devnet
  let redis: TestRedis
  let fromBlock: bigint
  const keys = [devnetAccounts.relayer, devnetAccounts.secondRelayer]

  beforeAll(async () => {
    redis = await startRedis()
    devnet = await startDevnet()
    fromBlock = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
  }, 60_000)
  afterAll(async () => {
    await devnet?.stop()
    await redis?.stop()
  })

  test('eight orders claimed at once: one call, fenced, each reading its outcome; released at once with their outcomes: one call', async () => {
    const prefix = 'order-relay:test-round-trips'
    const counted: RoundTripPurpose[] = []
    const shared = createSharedRedis(redis.url, { logger: silentLogger, health: { up() {}, error() {}, roundTrip: (purpose) => counted.push(purpose) }, prefix })
    await shared.connect()
    try {
      await shared.attempt('setting an epoch', 'heartbeat', (client) => client.send('SET', [`${prefix}:epoch`, 'test-epoch']))
      const orderHashes = Array.from({ length: 8 }, (_, i) => `0x${i.toString(16).padStart(2, '0').repeat(32)}` as Hex)
      // One of them settled already, as another replica published it.
      const published = JSON.stringify({ status: 'settled', txHash: `0x${'ee'.repeat(32)}`, blockNumber: '7' })
      await shared.attempt('publishing an outcome', 'outcomes', (client) => client.send('SET', [`${prefix}:outcome:${orderHashes[0]}`, published]))
      counted.length = 0
      const claims = createRedisClaims(shared, { leaseMs: 60_000, fence: { epoch: 'test-epoch', suspect() {} } })
      expect(await Promise.all(orderHashes.map((orderHash) => claims.claim(orderHash)))).toEqual(orderHashes.map(() => true))
      expect(counted).toEqual(['orders'])
      expect(orderHashes.map((orderHash) => claims.outcomeAtClaim(orderHash))).toEqual([published, ...orderHashes.slice(1).map(() => null)])
      // The first is released without an outcome of its own (this replica sent nothing for it).
      await Promise.all(orderHashes.map((orderHash, i) => claims.releaseWith(orderHash, i === 0 ? undefined : { status: 'settled', txHash: `0x${i.toString(16).padStart(2, '0').repeat(32)}` })))
      expect(counted).toEqual(['orders', 'orders'])
      const stored = await shared.attempt('reading the claims and outcomes', 'outcomes', (client) =>
        client.send('EVAL', ["local out = {} for i, key in ipairs(KEYS) do out[i] = redis.call('EXISTS', key) end return out", String(16), ...orderHashes.flatMap((orderHash) => [`${prefix}:claim:${orderHash}`, `${prefix}:outcome:${orderHash}`])]),
      )
      // Every claim free, every outcome there (the first as the other replica left it).
      expect(stored).toEqual({ ok: true, value: orderHashes.flatMap(() => [0, 1]) })
    } finally {
      shared.close()
    }
  }, 30_000)

  test('orders one at a time on two replicas: three calls each (claim, announce, release), no other round trip', async () => {
    const replicas = [
      await startTestRelayer(devnet, { env: { RELAYER_PK: keys[0]!.privateKey, RELAYER_REDIS_URL: redis.url, RELAYER_REDIS_RESTORE_MS: '1000', RELAYER_DB: ':memory:' } }),
      await startTestRelayer(devnet, { env: { RELAYER_PK: keys[1]!.privateKey, RELAYER_REDIS_URL: redis.url, RELAYER_REDIS_RESTORE_MS: '1000', RELAYER_DB: ':memory:' } }),
    ]
    try {
      const before = await Promise.all(replicas.map(roundTrips))
      const perReplica = 3
      for (let i = 0; i < perReplica * replicas.length; i++) {
        const answer = await replicas[i % replicas.length]!.post(await signed(devnet, allocationOrder(devnet)))
        expect({ status: answer.status, ok: answer.body.ok }).toEqual({ status: 200, ok: true })
      }
      const after = await Promise.all(replicas.map(roundTrips))
      for (const [i, counts] of after.entries()) {
        // The heartbeat's (the epoch read, the renewals) go by the clock, not by order.
        const { heartbeat: _, ...byOrder } = counts
        const { heartbeat: __, ...byOrderBefore } = before[i]!
        expect({ replica: i, ...byOrder }).toEqual({ replica: i, settings: byOrderBefore.settings!, orders: (byOrderBefore.orders ?? 0) + 3 * perReplica })
      }
    } finally {
      for (const replica of replicas) await replica.stop()
    }
  }, 60_000)

  test("money-safety: no order settled twice, no tx from either replica's key reverted", async () => {
    for (const [orderHash, txs] of await brokeredByOrder(devnet)) expect({ orderHash, settledIn: txs.length }).toEqual({ orderHash, settledIn: 1 })
    for (const key of keys) expect((await txsFrom(devnet, key.address as Address, fromBlock)).filter((tx) => tx.status !== 'success')).toEqual([])
  }, 60_000)
})
