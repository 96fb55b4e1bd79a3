// What a relayer replica says about its Redis at start (docs/scaling.md, "Redis
// settings"), against real redis-servers: a missing or wrong password is said as an
// authentication error (Bun's client reports only a closed connection), an eviction
// policy other than noeviction and a Redis without an append-only file are warned
// about, and a Redis set as the docs say gets no warning.
import { afterAll, describe, expect, test } from 'bun:test'
import { createSharedRedis } from '../../src/relayer/replicas/index.ts'
import { checkRedisSettings } from '../../src/relayer/replicas/checkRedisSettings.ts'
import { silentLogger } from '../../src/shared/index.ts'
import { hasRedisServer, startRedis, type TestRedis } from '../../scripts/lib/index.ts'

const started: TestRedis[] = []
afterAll(async () => {
  for (const redis of started) await redis.stop()
})

async function redisWith(args: string[]) {
  const redis = await startRedis({ args })
  started.push(redis)
  return redis
}

const connectError = async (url: string) => {
  const shared = createSharedRedis(url, { logger: silentLogger, health: { up() {}, error() {} }, prefix: 'order-relay:test-settings' })
  try {
    await shared.connect()
    return undefined
  } catch (error) {
    return (error as Error).message
  } finally {
    shared.close()
  }
}

const settingsOf = async (url: string) => {
  const shared = createSharedRedis(url, { logger: silentLogger, health: { up() {}, error() {} }, prefix: 'order-relay:test-settings' })
  await shared.connect()
  try {
    return await checkRedisSettings(shared)
  } finally {
    shared.close()
  }
}

describe.skipIf(!hasRedisServer)('a replica\'s Redis at start', () => {
  test('no password where one is required, and a wrong one, are authentication errors (the password never shown)', async () => {
    const redis = await redisWith(['--requirepass', 's3cret-pass'])
    const shown = `redis://127.0.0.1:${redis.port}`
    expect(await connectError(redis.url)).toBe(
      `RELAYER_REDIS_URL ${shown}: authentication required: Redis asks for a password and RELAYER_REDIS_URL has none (redis://:PASSWORD@host:port, or redis://USER:PASSWORD@host:port with an ACL user)`,
    )
    const wrong = await connectError(`redis://:not-the-pass@127.0.0.1:${redis.port}`)
    expect(wrong).toBe(`RELAYER_REDIS_URL ${shown}: authentication failed: Redis refused the user or password in RELAYER_REDIS_URL`)
    expect(await connectError(`redis://default:not-the-pass@127.0.0.1:${redis.port}`)).toBe(wrong)
    expect(await connectError(`redis://:s3cret-pass@127.0.0.1:${redis.port}`)).toBeUndefined()
  }, 30_000)

  test('an eviction policy other than noeviction, and no append-only file, are warned about', async () => {
    const redis = await redisWith(['--maxmemory-policy', 'allkeys-lru'])
    expect(await settingsOf(redis.url)).toEqual([
      'Redis evicts keys under memory pressure (maxmemory-policy allkeys-lru, no maxmemory set yet): set maxmemory-policy noeviction, or an evicted claim or outcome stops every replica from taking new orders while they re-publish',
      "Redis keeps no append-only file (appendonly no): a restart brings it back without the replicas' claims and outcomes, and every replica then refuses new orders for RELAYER_REDIS_RESTORE_MS while they re-publish; set appendonly yes",
    ])
  }, 30_000)

  test('noeviction with an append-only file: no warning', async () => {
    const redis = await redisWith(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction'])
    expect(await settingsOf(redis.url)).toEqual([])
  }, 30_000)
})
