import type { Hex } from 'viem'
import { createLocalClaims, type OrderClaims } from '../journal/index.ts'
import type { SharedRedis } from './sharedRedis.ts'

/** Deletes the claim only if it still holds this process's token (never another replica's claim). */
const releaseScript = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end"

/**
 * Takes a claim fenced by the epoch (KEYS[2]): -1 when the epoch is not the one this
 * replica knows (Redis lost state since: no claim is trusted until every replica has
 * re-published), 1 when taken, 0 when another holds it.
 */
const claimScript = `
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return -1 end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[3]) then return 1 end
return 0
`

/**
 * Renews every claim this replica holds, fenced by the epoch (KEYS[1] = ARGV[1]):
 * -1 when the epoch moved, else the positions (1-based, in KEYS[2..]) of the claims
 * that no longer hold this replica's token (gone: evicted, expired, or Redis lost them).
 */
const renewScript = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local gone = {}
for i = 2, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[i + 1] then redis.call('PEXPIRE', KEYS[i], ARGV[2]) else table.insert(gone, i - 1) end
end
return gone
`

/** How the claims are fenced: the epoch the shared state knows, and where to say it moved. */
export type ClaimFence = { readonly epoch: string | undefined; suspect(): void }

/** OrderClaims shared through Redis, with what the shared state's heartbeat needs. */
export type RedisClaims = OrderClaims & {
  /** Renews the lease of every claim held here (fenced by `epoch`). */
  renew(epoch: string): Promise<{ ok: true; epochMoved: boolean; missing: string[] } | { ok: false }>
  /** Takes again, under the current epoch, every claim held here (after Redis lost them). */
  republish(): Promise<boolean>
  /** The orderHashes whose claim this replica holds in Redis. */
  heldInRedis(): Hex[]
  /** Whether this replica holds the order's claim in Redis (not only in its own memory). */
  shared(orderHash: Hex): boolean
}

/**
 * OrderClaims shared by relayer replicas: a lease `SET claim NX PX leaseMs` with a
 * random token, fenced by the shared state's epoch, renewed by the shared state's
 * heartbeat while the order is worked on here, and released by a script that deletes
 * only its own token. A replica that dies leaves a claim that expires within
 * `leaseMs` (a silent one too: its renewals stop). A duplicate in this process waits
 * on the local claim first; one on another replica polls the key until it is gone.
 * While Redis fails (or the epoch moved), a claim is taken locally only, and the
 * shared state refuses the order unless this replica's journal answers it.
 */
export function createRedisClaims(redis: SharedRedis, options: { leaseMs: number; fence: ClaimFence; pollMs?: number }): RedisClaims {
  const local = createLocalClaims()
  const pollMs = options.pollMs ?? 25
  const { fence } = options
  // orderHash → the token of our Redis claim; null: claimed locally only.
  const tokens = new Map<Hex, string | null>()
  const key = (orderHash: Hex) => redis.key('claim', orderHash.toLowerCase())
  const epochKey = redis.key('epoch')

  async function take(orderHash: Hex, token: string): Promise<'taken' | 'held' | 'unshared'> {
    const epoch = fence.epoch
    if (epoch === undefined) return 'unshared'
    const set = await redis.attempt('claiming an orderHash', (client) => client.send('EVAL', [claimScript, '2', key(orderHash), epochKey, token, epoch, String(options.leaseMs)]))
    if (!set.ok) return 'unshared'
    if (set.value === -1) {
      fence.suspect()
      return 'unshared'
    }
    return set.value === 1 ? 'taken' : 'held'
  }

  return {
    async claim(orderHash) {
      if (!(await local.claim(orderHash))) return false
      const token = crypto.randomUUID()
      const taken = await take(orderHash, token)
      if (taken === 'held') {
        await local.release(orderHash)
        return false
      }
      tokens.set(orderHash, taken === 'taken' ? token : null)
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
    heldInRedis() {
      return [...tokens].flatMap(([orderHash, token]) => (token ? [orderHash] : []))
    },
    shared(orderHash) {
      return Boolean(tokens.get(orderHash))
    },
    async renew(epoch) {
      const held = [...tokens].filter((entry): entry is [Hex, string] => entry[1] !== null)
      const renewed = await redis.attempt('renewing orderHash claims', (client) =>
        client.send('EVAL', [renewScript, String(held.length + 1), epochKey, ...held.map(([orderHash]) => key(orderHash)), epoch, String(options.leaseMs), ...held.map(([, token]) => token)]),
      )
      if (!renewed.ok) return { ok: false }
      if (renewed.value === -1) return { ok: true, epochMoved: true, missing: [] }
      // A claim released meanwhile is not missing: only those still held with the same token.
      const missing = (renewed.value as number[]).map((position) => held[position - 1]!).filter(([orderHash, token]) => tokens.get(orderHash) === token)
      return { ok: true, epochMoved: false, missing: missing.map(([orderHash]) => orderHash) }
    },
    async republish() {
      for (const [orderHash, token] of [...tokens]) {
        const next = crypto.randomUUID()
        const taken = await take(orderHash, next)
        if (taken === 'unshared') return false
        // Released while this ran: give back what was just taken.
        if (tokens.get(orderHash) !== token) {
          if (taken === 'taken') await redis.attempt('releasing an orderHash claim', (client) => client.send('EVAL', [releaseScript, '1', key(orderHash), next]))
          continue
        }
        tokens.set(orderHash, taken === 'taken' ? next : null)
      }
      return true
    },
  }
}
