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
 * reverted tx (ARGV[3] '0'): where a failure let two replicas send the same order, one
 * settled it and the other's tx reverted, and the settlement is what every replica must
 * answer. ARGV[3] '1' sets it whatever is there (a settlement); '2' replaces a settlement
 * only of the same tx (ARGV[4], its `"txHash":"0x…"` in lower case): a reorg took it out.
 */
const publishScript = `
if ARGV[3] ~= '1' then
  local current = redis.call('GET', KEYS[1])
  if current and string.find(current, '"status":"settled"', 1, true) then
    if ARGV[3] == '0' or not string.find(string.lower(current), ARGV[4], 1, true) then return 0 end
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`

/** Deletes the outcome unless it is a settlement of another tx than ARGV[1] (`"txHash":"0x…"`, lower case). */
const withdrawScript = `
local current = redis.call('GET', KEYS[1])
if current and string.find(current, '"status":"settled"', 1, true) and not string.find(string.lower(current), ARGV[1], 1, true) then return 0 end
redis.call('DEL', KEYS[1])
return 1
`

const txHashField = (txHash: string) => `"txhash":"${txHash.toLowerCase()}"`

/**
 * Each replica keeps its own journal, so one that did not broadcast an order learns
 * where it went from here: the holder of the claim publishes the tx under the
 * orderHash before releasing it. Best effort: Redis failing means no outcome (the
 * other replica then searches the Broker's logs or simulates).
 */
export function createSharedOutcomes(redis: SharedRedis) {
  const key = (orderHash: Hex) => redis.key('outcome', orderHash.toLowerCase())
  return {
    /**
     * Publishes where the order went (for `ttlMs`, default 24 h); false when Redis failed.
     * `reorged`: this replica's own tx for the order left the chain or came back in
     * another block, so a settlement of that same tx is replaced too.
     */
    async publish(orderHash: Hex, outcome: SharedOutcome, ttlMs = outcomeTtlMs, reorged = false): Promise<boolean> {
      const mode = outcome.status === 'settled' ? '1' : reorged ? '2' : '0'
      const args = [publishScript, '1', key(orderHash), JSON.stringify(outcome), String(Math.max(1, Math.round(ttlMs))), mode, txHashField(outcome.txHash)]
      return (await redis.attempt('publishing an order outcome', (client) => client.send('EVAL', args))).ok
    },
    /** Takes back what was published of the order's tx `txHash` (its nonce was filled after a reorg); false when Redis failed. */
    async withdraw(orderHash: Hex, txHash: Hex): Promise<boolean> {
      return (await redis.attempt('withdrawing an order outcome', (client) => client.send('EVAL', [withdrawScript, '1', key(orderHash), txHashField(txHash)]))).ok
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
