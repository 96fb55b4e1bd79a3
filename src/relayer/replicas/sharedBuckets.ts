import type { TokenBuckets, TokenVerdict } from '../edge/tokenBucket.ts'
import type { SharedRedis } from './sharedRedis.ts'

/**
 * Refill and take in one step, on Redis's clock (so replicas' clocks do not matter):
 * the same arithmetic as the in-memory bucket (edge/tokenBucket.ts). The key expires
 * once the bucket would be full again (a full bucket is the same as none).
 * Returns {1} or {0, retryAfterSeconds}.
 */
const takeScript = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then tokens = burst; at = now end
tokens = math.min(burst, tokens + math.max(0, now - at) / 1000 * rate)
local allowed = 0
if tokens >= 1 - 1e-9 then tokens = math.max(0, tokens - 1); allowed = 1 end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', string.format('%.17g', now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
if allowed == 1 then return {1} end
return {0, math.max(1, math.ceil((1 - 5e-10 - tokens) / rate))}
`

/**
 * The rate limiter's buckets shared by relayer replicas, so a client's burst holds
 * across all of them. While Redis fails, the replica's own in-memory buckets answer.
 */
export function createSharedBuckets(redis: SharedRedis, local: TokenBuckets, options: { ratePerSec: number; burst: number }) {
  return {
    async take(client: string): Promise<TokenVerdict> {
      const taken = await redis.attempt('taking a rate-limit token', 'rate-limit', (redisClient) =>
        redisClient.send('EVAL', [takeScript, '1', redis.key('rate', client), String(options.ratePerSec), String(options.burst)]),
      )
      if (!taken.ok) return local.take(client)
      const [allowed, retryAfter] = taken.value as [number, number | undefined]
      return allowed === 1 ? { allowed: true } : { allowed: false, retryAfterSeconds: Number(retryAfter ?? 1) }
    },
  }
}
