import type { Hex } from 'viem'
import { createLocalClaims, type OrderClaims } from '../journal/index.ts'
import type { SharedRedis } from './sharedRedis.ts'

/** Deletes the claim only if it still holds this process's token (never another replica's claim). */
const releaseScript = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end"

/**
 * OrderClaims shared by relayer replicas: `SET claim NX PX` with a random token,
 * released by a script that deletes only its own token. The expiry (longer than
 * any relay) frees the claim of a replica that died holding it. A duplicate in
 * this process waits on the local claim first; one on another replica polls the
 * key until it is gone. While Redis fails, a claim is taken locally only (the
 * weakened guarantee docs/scaling.md describes).
 */
export function createRedisClaims(redis: SharedRedis, options: { ttlMs: number; pollMs?: number }): OrderClaims {
  const local = createLocalClaims()
  const pollMs = options.pollMs ?? 25
  // orderHash → the token of our Redis claim; null: claimed locally during an outage.
  const tokens = new Map<Hex, string | null>()
  const key = (orderHash: Hex) => redis.key('claim', orderHash.toLowerCase())

  return {
    async claim(orderHash) {
      if (!(await local.claim(orderHash))) return false
      const token = crypto.randomUUID()
      const set = await redis.attempt('claiming an orderHash', (client) => client.send('SET', [key(orderHash), token, 'NX', 'PX', String(options.ttlMs)]))
      if (set.ok && set.value === null) {
        await local.release(orderHash)
        return false
      }
      tokens.set(orderHash, set.ok ? token : null)
      return true
    },
    async release(orderHash) {
      const token = tokens.get(orderHash)
      tokens.delete(orderHash)
      if (token) await redis.attempt('releasing an orderHash claim', (client) => client.send('EVAL', [releaseScript, '1', key(orderHash), token]))
      await local.release(orderHash)
    },
    async released(orderHash, timeoutMs) {
      const deadline = Date.now() + timeoutMs
      await local.released(orderHash, timeoutMs)
      while (Date.now() < deadline) {
        const held = await redis.attempt('watching an orderHash claim', (client) => client.send('EXISTS', [key(orderHash)]))
        if (!held.ok || held.value === 0) return
        await Bun.sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())))
      }
    },
    get held() {
      return local.held
    },
  }
}
