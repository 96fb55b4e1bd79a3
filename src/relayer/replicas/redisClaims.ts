import type { Hex } from 'viem'
import { createLocalClaims, type OrderClaims } from '../journal/index.ts'
import { type BatchStep, batchCommand, batchResults, type StepResult } from './claimBatch.ts'
import { outcomeWrite, type SharedOutcome } from './sharedOutcomes.ts'
import type { RoundTripPurpose, SharedRedis } from './sharedRedis.ts'

/** How the claims are fenced: the epoch the shared state knows, and where to say it moved. */
export type ClaimFence = { readonly epoch: string | undefined; suspect(): void }

/** OrderClaims shared through Redis, with what the shared state's heartbeat needs. */
export type RedisClaims = OrderClaims & {
  /**
   * Publishes the order's outcome (when given) and releases its claim, in one step of
   * the next call to Redis (the outcome first, so another replica finds it once the
   * claim is free); then the local claim.
   */
  releaseWith(orderHash: Hex, outcome: SharedOutcome | undefined): Promise<void>
  /**
   * Publishes each order's tx as pending, in the next call, while this replica's claim of
   * the order still holds (its lease renewed in the same step): `published`, `lost` (the
   * claim is gone or fenced out: nothing was published) or `failed` (Redis failed: it may
   * or may not hold the tx).
   */
  announce(txs: readonly { orderHash: Hex; txHash: Hex }[]): Promise<('published' | 'lost' | 'failed')[]>
  /** Publishes `outcome` in the next call to Redis; whether that call succeeded. */
  publish(orderHash: Hex, outcome: SharedOutcome): Promise<boolean>
  /** The order's outcome as read with its claim (null: none published); undefined when its claim is not held in Redis. */
  outcomeAtClaim(orderHash: Hex): string | null | undefined
  /** Renews the lease of every claim held here (fenced by `epoch`). */
  renew(epoch: string): Promise<{ ok: true; epochMoved: boolean; missing: string[] } | { ok: false }>
  /** Takes again, under the current epoch, every claim held here (after Redis lost them). */
  republish(): Promise<boolean>
  /** Resolves once no call is queued or in flight. */
  idle(): Promise<void>
  /** The orderHashes whose claim this replica holds in Redis. */
  heldInRedis(): Hex[]
  /** Whether this replica holds the order's claim in Redis (not only in its own memory). */
  shared(orderHash: Hex): boolean
}

/** A step waiting for the next call to Redis, and who hears its result (undefined: Redis failed). */
type Queued = { step: BatchStep; purpose: RoundTripPurpose; what: string; done(result: { epoch: string; result: StepResult } | undefined): void }

/** Which purpose a call carrying several is counted under: the orders' first. */
const purposeRank: RoundTripPurpose[] = ['orders', 'heartbeat', 'restoring']

/**
 * OrderClaims shared by relayer replicas: a lease `SET claim NX PX leaseMs` with a
 * random token, fenced by the shared state's epoch, renewed by the shared state's
 * heartbeat while the order is worked on here, and released only while it holds its
 * own token. Every claim, renewal, release and publication is a step of one script
 * (claimBatch.ts), and the steps asked for while a call is in flight (or within the
 * same turn of the event loop) go together in the next call: a claim reads the order's
 * outcome in its step, a release publishes it in its own, and concurrent orders share
 * their calls. A replica that dies leaves a claim that expires within `leaseMs` (a
 * silent one too: its renewals stop). A duplicate in this process waits on the local
 * claim first; one on another replica polls the key until it is gone. While Redis
 * fails (or the epoch moved), a claim is taken locally only, and the shared state
 * refuses the order unless this replica's journal answers it.
 */
export function createRedisClaims(redis: SharedRedis, options: { leaseMs: number; fence: ClaimFence; pollMs?: number }): RedisClaims {
  const local = createLocalClaims()
  const pollMs = options.pollMs ?? 25
  const { fence } = options
  // orderHash → the token of our Redis claim; null: claimed locally only.
  const tokens = new Map<Hex, string | null>()
  // orderHash → its outcome as read with its claim.
  const readAtClaim = new Map<Hex, string | null>()
  // orderHash → when the step that last took or renewed its Redis claim was sent: Redis's
  // lease runs `leaseMs` from a moment no earlier than that.
  const renewedAt = new Map<Hex, number>()

  /**
   * Forgets the Redis claims whose lease may have run out (none of their renewals answered
   * within `leaseMs`: Redis down, slow, or cut off from this replica). Another replica may
   * have taken such an order and sent it: this one no longer holds it, so it never announces
   * or sends it, never takes it again when it re-publishes its claims, and never reads it
   * gone as Redis having lost state (which would start a new epoch, fencing the other
   * replica's claim out). Its local claim stays until the order's own release.
   */
  function dropLapsed(): void {
    const now = Date.now()
    for (const [orderHash, token] of tokens) {
      if (token === null) continue
      const at = renewedAt.get(orderHash)
      if (at !== undefined && now >= at + options.leaseMs) {
        tokens.delete(orderHash)
        renewedAt.delete(orderHash)
        readAtClaim.delete(orderHash)
      }
    }
  }
  const keys = {
    epoch: redis.key('epoch'),
    claim: (orderHash: Hex) => redis.key('claim', orderHash.toLowerCase()),
    outcome: (orderHash: Hex) => redis.key('outcome', orderHash.toLowerCase()),
  }
  let queued: Queued[] = []
  let sending: Promise<void> | undefined
  let idleWaiters: (() => void)[] = []

  /** Sends every queued step in one call; then again while steps were queued meanwhile. */
  async function send(): Promise<void> {
    // Steps asked for in this turn of the event loop join the call.
    await new Promise<void>((resolve) => setImmediate(resolve))
    while (queued.length > 0) {
      const batch = queued
      queued = []
      const purpose = purposeRank.find((each) => batch.some((queuedStep) => queuedStep.purpose === each)) ?? 'orders'
      const what = (batch.find((each) => each.step.kind === 'claim') ?? batch[0]!).what
      const steps = batch.map((each) => each.step)
      // An answer of another shape counts as a failed command (attempt catches it).
      const got = await redis.attempt(what, purpose, async (client) => batchResults(await client.send('EVAL', batchCommand(steps, keys, options.leaseMs)), steps.length))
      batch.forEach((each, i) => each.done(got.ok ? { epoch: got.value.epoch, result: got.value.results[i]! } : undefined))
    }
    sending = undefined
    for (const wake of idleWaiters) wake()
    idleWaiters = []
  }

  function step(what: string, purpose: RoundTripPurpose, queuedStep: BatchStep): Promise<{ epoch: string; result: StepResult } | undefined> {
    return new Promise((done) => {
      queued.push({ step: queuedStep, purpose, what, done })
      sending ??= send()
    })
  }

  /** Takes the claims (orderHash and token) in the next call: each taken, held by another, or unshared (Redis failed or the epoch moved). */
  async function take(claims: [Hex, string][], purpose: RoundTripPurpose): Promise<('taken' | 'held' | 'unshared')[]> {
    const epoch = fence.epoch
    if (epoch === undefined) return claims.map(() => 'unshared')
    const sentAt = Date.now()
    const answers = await Promise.all(claims.map(([orderHash, token]) => step('claiming an orderHash', purpose, { kind: 'claim', orderHash, token, epoch })))
    if (answers.some((answer) => answer?.result.code === -1)) fence.suspect()
    return answers.map((answer, i) => {
      if (!answer || answer.result.code === -1) return 'unshared'
      if (answer.result.code === 0) return 'held'
      readAtClaim.set(claims[i]![0], answer.result.outcome)
      renewedAt.set(claims[i]![0], sentAt)
      return 'taken'
    })
  }

  async function releaseWith(orderHash: Hex, outcome: SharedOutcome | undefined): Promise<void> {
    const token = tokens.get(orderHash)
    tokens.delete(orderHash)
    readAtClaim.delete(orderHash)
    renewedAt.delete(orderHash)
    if (token || outcome) {
      await step('releasing an orderHash claim', 'orders', { kind: 'settle', orderHash, ...(token ? { token } : {}), ...(outcome ? { write: outcomeWrite(outcome) } : {}) })
    }
    await local.release(orderHash)
  }

  return {
    async claim(orderHash) {
      if (!(await local.claim(orderHash))) return false
      const token = crypto.randomUUID()
      const [taken] = await take([[orderHash, token]], 'orders')
      if (taken === 'held') {
        await local.release(orderHash)
        return false
      }
      tokens.set(orderHash, taken === 'taken' ? token : null)
      return true
    },
    release: (orderHash) => releaseWith(orderHash, undefined),
    releaseWith,
    async announce(txs) {
      dropLapsed()
      const epoch = fence.epoch
      const answers = await Promise.all(
        txs.map(({ orderHash, txHash }) => {
          const token = tokens.get(orderHash)
          if (!token || epoch === undefined) return 'lost' as const
          return step('announcing an order tx', 'orders', { kind: 'announce', orderHash, token, epoch, write: outcomeWrite({ status: 'pending', txHash }) })
        }),
      )
      if (answers.some((answer) => typeof answer === 'object' && answer.result.code === -1)) fence.suspect()
      return answers.map((answer) => (typeof answer === 'string' ? answer : answer === undefined ? 'failed' : answer.result.code === 1 ? 'published' : 'lost'))
    },
    async publish(orderHash, outcome) {
      return (await step('publishing an order outcome', 'heartbeat', { kind: 'settle', orderHash, write: outcomeWrite(outcome) })) !== undefined
    },
    outcomeAtClaim(orderHash) {
      return tokens.get(orderHash) ? readAtClaim.get(orderHash) : undefined
    },
    idle() {
      return sending ? new Promise((resolve) => idleWaiters.push(resolve)) : Promise.resolve()
    },
    async released(orderHash, timeoutMs) {
      const deadline = Date.now() + timeoutMs
      await local.released(orderHash, timeoutMs)
      while (Date.now() < deadline) {
        const held = await redis.attempt('watching an orderHash claim', 'waiting', (client) => client.send('EXISTS', [keys.claim(orderHash)]))
        if (!held.ok || held.value === 0) return
        await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, Math.max(0, deadline - Date.now()))))
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
      dropLapsed()
      const held = [...tokens].filter((entry): entry is [Hex, string] => entry[1] !== null)
      // Nothing to renew: the heartbeat has just read the epoch.
      if (held.length === 0) return { ok: true, epochMoved: false, missing: [] }
      const sentAt = Date.now()
      const answers = await Promise.all(held.map(([orderHash, token]) => step('renewing orderHash claims', 'heartbeat', { kind: 'renew', orderHash, token, epoch })))
      if (answers.some((answer) => answer === undefined)) return { ok: false }
      if (answers.some((answer) => answer!.epoch !== epoch)) return { ok: true, epochMoved: true, missing: [] }
      held.forEach(([orderHash, token], i) => {
        if (answers[i]!.result.code === 1 && tokens.get(orderHash) === token) renewedAt.set(orderHash, sentAt)
      })
      // A claim released meanwhile is not missing: only those still held with the same token.
      // One whose lease may have run out before this renewal reached Redis lapsed: it is dropped, not missing.
      const now = Date.now()
      const missing = held.filter(([orderHash, token], i) => answers[i]!.result.code !== 1 && tokens.get(orderHash) === token && now < (renewedAt.get(orderHash) ?? 0) + options.leaseMs)
      dropLapsed()
      return { ok: true, epochMoved: false, missing: missing.map(([orderHash]) => orderHash) }
    },
    async republish() {
      dropLapsed()
      const before = [...tokens]
      // Each claim keeps its token: one Redis kept (it was unavailable, not emptied) is still
      // this replica's, and a new token would find it "held" and stop its renewals.
      const next = before.map(([orderHash, token]) => [orderHash, token ?? crypto.randomUUID()] as [Hex, string])
      const taken = await take(next, 'restoring')
      if (taken.includes('unshared')) return false
      const giveBack: Promise<unknown>[] = []
      before.forEach(([orderHash, token], i) => {
        // Released while this ran: give back what was just taken.
        if (tokens.get(orderHash) !== token) {
          if (taken[i] === 'taken') giveBack.push(step('releasing an orderHash claim', 'restoring', { kind: 'settle', orderHash, token: next[i]![1] }))
          return
        }
        tokens.set(orderHash, taken[i] === 'taken' ? next[i]![1] : null)
      })
      await Promise.all(giveBack)
      return true
    },
  }
}
