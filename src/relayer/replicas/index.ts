// Relayer replicas sharing one Redis (RELAYER_REDIS_URL, docs/scaling.md).
export { type ClaimFence, createRedisClaims, type RedisClaims } from './redisClaims.ts'
export { checkRedisSettings } from './checkRedisSettings.ts'
export { claimLeaseMs, createReplicas, type Replicas, type ReplicasOptions } from './createReplicas.ts'
export { outcomeOfSlot, republishOutcomes } from './republishOutcomes.ts'
export { createSharedBuckets } from './sharedBuckets.ts'
export { createSharedOutcomes, outcomeTtlMs, parseOutcome, type SharedOutcome, type SharedOutcomes } from './sharedOutcomes.ts'
export { createSharedRedis, type RedisConnection, type RedisHealthHooks, type RoundTripPurpose, type SharedRedis } from './sharedRedis.ts'
export { createSharedState, type SharedState, type SharedStateHooks, type SharedStateName, type SharedStateView } from './sharedState.ts'
