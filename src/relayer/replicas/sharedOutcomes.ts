import * as v from 'valibot'
import type { Hex } from 'viem'
import { Bytes32Schema, relayErrorCodes } from '../../wire/index.ts'
import type { RoundTripPurpose, SharedRedis } from './sharedRedis.ts'

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
 * Lua `publish(key, json, ttlMs, mode, txField)`: sets the outcome, except that a
 * settlement is never replaced by a pending or reverted tx (mode '0'): where a failure
 * let two replicas send the same order, one settled it and the other's tx reverted, and
 * the settlement is what every replica must answer. Mode '1' sets it whatever is there
 * (a settlement); '2' replaces a settlement only of the same tx (txField, its
 * `"txHash":"0x…"` in lower case): a reorg took it out. Returns 1 when set, else 0.
 * Shared by `publish` here and the claim batch (claimBatch.ts).
 */
export const publishFunction = `
local function publish(key, json, ttl, mode, txField)
  if mode ~= '1' then
    local current = redis.call('GET', key)
    if current and string.find(current, '"status":"settled"', 1, true) then
      if mode == '0' or not string.find(string.lower(current), txField, 1, true) then return 0 end
    end
  end
  redis.call('SET', key, json, 'PX', ttl)
  return 1
end
`

const publishScript = `${publishFunction}
return publish(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
`

/** Deletes the outcome unless it is a settlement of another tx than ARGV[1] (`"txHash":"0x…"`, lower case). */
const withdrawScript = `
local current = redis.call('GET', KEYS[1])
if current and string.find(current, '"status":"settled"', 1, true) and not string.find(string.lower(current), ARGV[1], 1, true) then return 0 end
redis.call('DEL', KEYS[1])
return 1
`

/** Deletes the outcome while it names ARGV[1] (`"txHash":"0x…"`, lower case): a tx announced and never broadcast. */
const unannounceScript = `
local current = redis.call('GET', KEYS[1])
if current and string.find(string.lower(current), ARGV[1], 1, true) then redis.call('DEL', KEYS[1]) return 1 end
return 0
`

const txHashField = (txHash: string) => `"txhash":"${txHash.toLowerCase()}"`

/** An outcome as a publication sends it: its JSON, lifetime, mode and tx field (publishScript's ARGV, claimBatch.ts's too). */
export type OutcomeWrite = { json: string; ttlMs: string; mode: '0' | '1' | '2'; txField: string }

/**
 * What `publish` sends for an outcome: a settlement sets whatever is there ('1'); a
 * pending or reverted tx never replaces a settlement ('0'), unless `reorged`: the
 * replica's own tx left the chain or moved, and replaces its own settlement ('2').
 * @example
 * outcomeWrite({ status: 'settled', txHash }).mode // '1'
 */
export function outcomeWrite(outcome: SharedOutcome, ttlMs = outcomeTtlMs, reorged = false): OutcomeWrite {
  return {
    json: JSON.stringify(outcome),
    ttlMs: String(Math.max(1, Math.round(ttlMs))),
    mode: outcome.status === 'settled' ? '1' : reorged ? '2' : '0',
    txField: txHashField(outcome.txHash),
  }
}

/**
 * A stored outcome's JSON checked against its schema; undefined for none, or for one that does not parse.
 * @example
 * parseOutcome('{"status":"pending","txHash":"0x…"}')?.status // 'pending' (for a 32-byte txHash)
 */
export function parseOutcome(raw: string | null): SharedOutcome | undefined {
  if (raw === null) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    return undefined
  }
  const checked = v.safeParse(SharedOutcomeSchema, parsed)
  return checked.success ? checked.output : undefined
}

/**
 * Each replica keeps its own journal, so one that did not broadcast an order learns
 * where it went from here: the holder of the claim publishes the tx under the
 * orderHash as it releases the claim (both in one call, redisClaims.ts). Best effort:
 * Redis failing means no outcome (the other replica then searches the Broker's logs or
 * simulates). Each call here is one round trip, counted under `purpose`.
 */
export function createSharedOutcomes(redis: SharedRedis) {
  const key = (orderHash: Hex) => redis.key('outcome', orderHash.toLowerCase())
  return {
    /** The key an order's outcome is stored under. */
    key,
    /**
     * Publishes where the order went (for `ttlMs`, default 24 h); false when Redis failed.
     * `reorged`: this replica's own tx for the order left the chain or came back in
     * another block, so a settlement of that same tx is replaced too.
     */
    async publish(orderHash: Hex, outcome: SharedOutcome, ttlMs = outcomeTtlMs, reorged = false, purpose: RoundTripPurpose = 'outcomes'): Promise<boolean> {
      const write = outcomeWrite(outcome, ttlMs, reorged)
      const args = [publishScript, '1', key(orderHash), write.json, write.ttlMs, write.mode, write.txField]
      return (await redis.attempt('publishing an order outcome', purpose, (client) => client.send('EVAL', args))).ok
    },
    /** Takes back what was published of the order's tx `txHash` (its nonce was filled after a reorg); false when Redis failed. */
    async withdraw(orderHash: Hex, txHash: Hex): Promise<boolean> {
      return (await redis.attempt('withdrawing an order outcome', 'outcomes', (client) => client.send('EVAL', [withdrawScript, '1', key(orderHash), txHashField(txHash)]))).ok
    },
    /**
     * Takes back the order's tx `txHash` while the outcome still names it: announced (maybe:
     * Redis failed to answer) and never broadcast. False when Redis failed.
     */
    async unannounce(orderHash: Hex, txHash: Hex): Promise<boolean> {
      return (await redis.attempt('taking back an order tx never broadcast', 'outcomes', (client) => client.send('EVAL', [unannounceScript, '1', key(orderHash), txHashField(txHash)]))).ok
    },
    async read(orderHash: Hex): Promise<SharedOutcome | undefined> {
      const got = await redis.attempt('reading an order outcome', 'outcomes', (client) => client.get(key(orderHash)))
      return got.ok ? parseOutcome(got.value) : undefined
    },
  }
}

export type SharedOutcomes = ReturnType<typeof createSharedOutcomes>
