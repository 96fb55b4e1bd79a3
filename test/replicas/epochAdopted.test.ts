// The moment a replica finds Redis emptied (a new epoch), it takes no new order, before
// any other round trip: an order claimed under the new epoch while this replica still
// renews and re-publishes would otherwise be sent although another replica, whose claim
// Redis lost, is still sending it (found by the simulator, seed 291: both txs mined, the
// second reverted and paid).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createRedisClaims, createSharedRedis, createSharedState } from '../../src/relayer/replicas/index.ts'
import { silentLogger } from '../../src/shared/index.ts'
import { hasRedisServer, redisServerPath, startRedis, type TestRedis } from '../../scripts/lib/index.ts'
import { waitFor } from '../helpers/waitFor.ts'

if (!hasRedisServer) {
  console.log(`test/replicas/epochAdopted.test.ts: skipping: ${redisServerPath} is absent (install Debian's package: apt-get install -y redis-server)`)
}

describe.skipIf(!hasRedisServer)('a new epoch found by the heartbeat', () => {
  let redis: TestRedis
  beforeAll(async () => {
    redis = await startRedis()
  }, 30_000)
  afterAll(async () => {
    await redis?.stop()
  })

  test('the shared state is not whole from the heartbeat that reads it, while that heartbeat still renews', async () => {
    const shared = createSharedRedis(redis.url, { logger: silentLogger, health: { up() {}, error() {} }, prefix: 'order-relay:test-epoch-adopted' })
    await shared.connect()
    const state = createSharedState(shared, { logger: silentLogger, restoreWindowMs: 200, heartbeatMs: 50 })
    const claims = createRedisClaims(shared, { leaseMs: 10_000, fence: state })
    let firstEpoch: string | undefined
    let heldAt: string | undefined
    let letGo: () => void = () => {}
    const held = new Promise<void>((resolve) => (letGo = resolve))
    try {
      await state.start(
        {
          renew: async (epoch) => {
            // The renewal after Redis lost its state is held, as a slow round trip would hold it.
            if (firstEpoch !== undefined && epoch !== firstEpoch) {
              heldAt = epoch
              await held
            }
            return claims.renew(epoch)
          },
          republishClaims: () => claims.republish(),
          republishOutcomes: async () => true,
        },
        5_000,
      )
      expect(state.view.state).toBe('whole')
      firstEpoch = state.epoch
      await shared.attempt('emptying Redis', 'heartbeat', (client) => client.send('FLUSHALL', []))
      await waitFor('the heartbeat to read the new epoch and renew under it', () => heldAt !== undefined, 5_000)
      expect(state.epoch).toBe(heldAt!)
      expect(state.view.state).toBe('restoring')
      expect(state.whole).toBe(false)
      // A claim under the new epoch is taken in Redis, and still no new order is taken on it.
      const orderHash = `0x${'ab'.repeat(32)}` as const
      expect(await claims.claim(orderHash)).toBe(true)
      expect(claims.shared(orderHash)).toBe(true)
      expect(state.whole).toBe(false)
      await claims.release(orderHash)
      letGo()
      await waitFor('the shared state to be whole again after the restore window', () => state.whole, 5_000)
    } finally {
      letGo()
      state.stop()
      await claims.idle()
      shared.close()
    }
  }, 30_000)
})
