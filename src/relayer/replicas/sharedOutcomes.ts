import * as v from 'valibot'
import type { Hex } from 'viem'
import { Bytes32Schema, relayErrorCodes } from '../../wire/index.ts'
import type { SharedRedis } from './sharedRedis.ts'

/** Where an order went, as the replica that broadcast it left it (one JSON value per orderHash). */
export const SharedOutcomeSchema = v.object({
  status: v.picklist(['pending', 'settled', 'reverted']),
  txHash: Bytes32Schema,
  blockNumber: v.optional(v.string()),
  /** The code and message that replica answered, for an order that did not settle. */
  code: v.optional(v.picklist(Object.keys(relayErrorCodes) as [keyof typeof relayErrorCodes, ...(keyof typeof relayErrorCodes)[]])),
  message: v.optional(v.string()),
})
export type SharedOutcome = v.InferOutput<typeof SharedOutcomeSchema>

/** How long an outcome stays readable by the other replicas. */
export const outcomeTtlMs = 24 * 3_600_000

/**
 * Sets the outcome, except that a settlement is never replaced by a pending or
 * reverted tx: where a failure let two replicas send the same order, one settled it
 * and the other's tx reverted, and the settlement is what every replica must answer.
 */
const publishScript = `
if ARGV[3] == '0' then
  local current = redis.call('GET', KEYS[1])
  if current and string.find(current, '"status":"settled"', 1, true) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`

/**
 * Each replica keeps its own journal, so one that did not broadcast an order learns
 * where it went from here: the holder of the claim publishes the tx under the
 * orderHash before releasing it. Best effort: Redis failing means no outcome (the
 * other replica then searches the Broker's logs or simulates).
 */
export function createSharedOutcomes(redis: SharedRedis) {
  const key = (orderHash: Hex) => redis.key('outcome', orderHash.toLowerCase())
  return {
    /** Publishes where the order went (for `ttlMs`, default 24 h); false when Redis failed. */
    async publish(orderHash: Hex, outcome: SharedOutcome, ttlMs = outcomeTtlMs): Promise<boolean> {
      const args = [publishScript, '1', key(orderHash), JSON.stringify(outcome), String(Math.max(1, Math.round(ttlMs))), outcome.status === 'settled' ? '1' : '0']
      return (await redis.attempt('publishing an order outcome', (client) => client.send('EVAL', args))).ok
    },
    async read(orderHash: Hex): Promise<SharedOutcome | undefined> {
      const got = await redis.attempt('reading an order outcome', (client) => client.get(key(orderHash)))
      if (!got.ok || got.value === null) return undefined
      let parsed: unknown
      try {
        parsed = JSON.parse(got.value)
      } catch {
        return undefined
      }
      const checked = v.safeParse(SharedOutcomeSchema, parsed)
      return checked.success ? checked.output : undefined
    },
  }
}

export type SharedOutcomes = ReturnType<typeof createSharedOutcomes>
