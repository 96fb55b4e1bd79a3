// A replica whose Redis stops answering for a moment, and comes back with its data,
// re-publishes its claims once it answers again. Each claim keeps its token there: a
// claim Redis kept is still this replica's and its lease goes on being renewed. Taken
// with a new token it was found "held", the replica stopped renewing it, and once its
// lease ran out another replica took the order while this one was still signing it
// (found by the simulator, seed 2149: both replicas' txs for the order mined).
import { RedisClient } from 'bun'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createRedisClaims, createSharedRedis, createSharedState } from '../../src/relayer/replicas/index.ts'
import { silentLogger } from '../../src/shared/index.ts'
import { hasRedisServer, redisServerPath, startRedis, type TestRedis } from '../../scripts/lib/index.ts'
import { waitFor } from '../helpers/waitFor.ts'

if (!hasRedisServer) {
  console.log(`test/replicas/claimsKeptAcrossOutage.test.ts: skipping: ${redisServerPath} is absent (install Debian's package: apt-get install -y redis-server)`)
}

const prefix = 'order-relay:test-claims-kept'
const leaseMs = 2_000

describe.skipIf(!hasRedisServer)('claims re-published after Redis stopped answering', () => {
  let redis: TestRedis
  beforeAll(async () => {
    redis = await startRedis()
  }, 30_000)
  afterAll(async () => {
    await redis?.stop()
  })

  test('a claim Redis kept stays this replica\'s, renewed past its lease, and no other replica can take it', async () => {
    const shared = createSharedRedis(redis.url, { logger: silentLogger, health: { up() {}, error() {} }, prefix })
    await shared.connect()
    const state = createSharedState(shared, { logger: silentLogger, restoreWindowMs: 200, heartbeatMs: 50 })
    const claims = createRedisClaims(shared, { leaseMs, fence: state })
    const other = createSharedRedis(redis.url, { logger: silentLogger, health: { up() {}, error() {} }, prefix })
    await other.connect()
    const otherClaims = createRedisClaims(other, { leaseMs, fence: { get epoch() { return state.epoch }, suspect() {} } })
    const admin = new RedisClient(redis.url)
    const orderHash = `0x${'cd'.repeat(32)}` as const
    const claimKey = `${prefix}:claim:${orderHash}`
    try {
      await state.start({ renew: (epoch) => claims.renew(epoch), republishClaims: () => claims.republish(), republishOutcomes: async () => true }, 5_000)
      expect(state.whole).toBe(true)
      expect(await claims.claim(orderHash)).toBe(true)
      const token = await admin.get(claimKey)
      expect(token).not.toBeNull()

      // Every client's commands wait 1.5 s: the replica's time out (1 s), and the state is unavailable.
      await admin.send('CLIENT', ['PAUSE', '1500', 'ALL'])
      await waitFor('the shared state to be unavailable while Redis does not answer', () => state.view.state === 'unavailable', 5_000)
      await waitFor('the shared state to be whole again once Redis answers', () => state.whole, 10_000)
      const wholeAt = Date.now()

      expect(claims.shared(orderHash)).toBe(true)
      expect(await admin.get(claimKey)).toBe(token)
      // Past a whole lease since the replica re-published: only its renewals keep the claim.
      await waitFor('a lease to pass since the state was whole again', () => Date.now() > wholeAt + leaseMs + 500, leaseMs + 5_000, 100)
      expect(await admin.get(claimKey)).toBe(token)
      expect(await otherClaims.claim(orderHash)).toBe(false)
      expect(claims.shared(orderHash)).toBe(true)

      await claims.release(orderHash)
      expect(await admin.get(claimKey)).toBeNull()
    } finally {
      state.stop()
      await claims.idle()
      await otherClaims.idle()
      shared.close()
      other.close()
      admin.close()
    }
  }, 30_000)
})
