// Relayer replicas sharing one Redis (RELAYER_REDIS_URL, docs/scaling.md).
export { createRedisClaims } from './redisClaims.ts'
export { createSharedBuckets } from './sharedBuckets.ts'
export { createSharedOutcomes, type SharedOutcome, type SharedOutcomes } from './sharedOutcomes.ts'
export { createSharedRedis, type RedisHealthHooks, type SharedRedis } from './sharedRedis.ts'
