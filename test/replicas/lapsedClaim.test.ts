// A replica cut off from Redis for longer than a claim's lease (its renewals unanswered)
// no longer holds that claim: another replica may take the order and settle it
// meanwhile. Once Redis answers it again, the replica drops the claim instead of
// reading it gone as Redis having lost state: it starts no new epoch, does not take the
// order again when it re-publishes its claims, and never announces (so never sends) the
// tx it signed for it. Taken again, the order settled by the other replica was sent a
// second time and reverted, paid (found by the simulator, seed 13483: a slow signer held
// the batch while the replica was cut off).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { RedisClient } from 'bun'
import { createRedisClaims, createSharedRedis, createSharedState } from '../../src/relayer/replicas/index.ts'
import { silentLogger } from '../../src/shared/index.ts'
import { hasRedisServer, redisServerPath, startRedis, type TestRedis } from '../../scripts/lib/index.ts'
import { startTcpProxy } from '../indexer/tcpProxy.ts'
import { waitFor } from '../helpers/waitFor.ts'

if (!hasRedisServer) {
  console.log(`test/replicas/lapsedClaim.test.ts: skipping: ${redisServerPath} is absent (install Debian's package: apt-get install -y redis-server)`)
}

const prefix = 'order-relay:test-lapsed-claim'
const leaseMs = 1_500

describe.skipIf(!hasRedisServer)('a claim whose lease ran out while its replica was cut off from Redis', () => {
  let redis: TestRedis
  beforeAll(async () => {
    redis = await startRedis()
  }, 30_000)
  afterAll(async () => {
    await redis?.stop()
  })

  test('is dropped once Redis answers again: no new epoch, not taken again after the other replica settled the order, its tx never announced', async () => {
    const proxy = await startTcpProxy(redis.port)
    const hooks = { logger: silentLogger, health: { up() {}, error() {} }, prefix }
    const cutOff = createSharedRedis(`redis://127.0.0.1:${proxy.port}`, hooks)
    const direct = createSharedRedis(redis.url, hooks)
    await Promise.all([cutOff.connect(), direct.connect()])
    const stateA = createSharedState(cutOff, { logger: silentLogger, restoreWindowMs: 200, heartbeatMs: 50 })
    const stateB = createSharedState(direct, { logger: silentLogger, restoreWindowMs: 200, heartbeatMs: 50 })
    const claimsA = createRedisClaims(cutOff, { leaseMs, fence: stateA })
    const claimsB = createRedisClaims(direct, { leaseMs, fence: stateB })
    const admin = new RedisClient(redis.url)
    const orderHash = `0x${'ab'.repeat(32)}` as const
    const claimKey = `${prefix}:claim:${orderHash}`
    try {
      await stateA.start({ renew: (epoch) => claimsA.renew(epoch), republishClaims: () => claimsA.republish(), republishOutcomes: async () => true }, 5_000)
      await stateB.start({ renew: (epoch) => claimsB.renew(epoch), republishClaims: () => claimsB.republish(), republishOutcomes: async () => true }, 5_000)
      const epoch = stateA.epoch
      expect(stateB.epoch).toBe(epoch)
      expect(await claimsA.claim(orderHash)).toBe(true)

      // A is cut off (its packets dropped) past the lease: its claim expires in Redis.
      proxy.blackhole()
      await waitFor('the cut-off replica to find Redis unavailable', () => stateA.view.state === 'unavailable', 5_000)
      await waitFor('the claim to expire in Redis', async () => (await admin.get(claimKey)) === null, leaseMs + 5_000, 50)
      // B takes the order, settles it and releases the claim with its outcome.
      expect(await claimsB.claim(orderHash)).toBe(true)
      await claimsB.releaseWith(orderHash, { status: 'settled', txHash: `0x${'11'.repeat(32)}` })
      expect(await admin.get(claimKey)).toBeNull()

      proxy.heal()
      await waitFor('the cut-off replica to find the shared state whole again', () => stateA.whole, 10_000)
      expect(stateA.epoch).toBe(epoch)
      expect(stateB.epoch).toBe(epoch)
      expect(claimsA.shared(orderHash)).toBe(false)
      expect(await admin.get(claimKey)).toBeNull()
      expect(await claimsA.announce([{ orderHash, txHash: `0x${'22'.repeat(32)}` }])).toEqual(['lost'])
      expect(await admin.get(claimKey)).toBeNull()
    } finally {
      stateA.stop()
      stateB.stop()
      await claimsA.idle()
      await claimsB.idle()
      cutOff.close()
      direct.close()
      admin.close()
      await proxy.down()
    }
  }, 30_000)
})
