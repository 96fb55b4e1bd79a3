import type { Hex } from 'viem'
import type { Logger } from '../../shared/index.ts'
import type { TokenBuckets } from '../edge/tokenBucket.ts'
import { RelayError } from '../errors.ts'
import type { Journal } from '../journal/index.ts'
import { checkRedisSettings } from './checkRedisSettings.ts'
import { createRedisClaims } from './redisClaims.ts'
import { followReorgs } from './followReorgs.ts'
import { republishOutcomes } from './republishOutcomes.ts'
import { createSharedBuckets } from './sharedBuckets.ts'
import { createSharedOutcomes } from './sharedOutcomes.ts'
import { createSharedRedis, type RedisConnection, type RedisHealthHooks } from './sharedRedis.ts'
import { createSharedState, type SharedStateHooks } from './sharedState.ts'

/** How long a claim lives unless its holder renews it: a dead or silent replica's claims are free within this. */
export const claimLeaseMs = 10_000

export type ReplicasOptions = {
  logger: Logger
  /** Prefix of every key (chain and Broker). */
  prefix: string
  /** The journal this replica publishes from (read only): the pending tx of an order it holds, everything once Redis lost its state. */
  journal: Pick<Journal, 'pending' | 'nextNonce' | 'slots' | 'slot' | 'byOrder' | 'observe'>
  /** RELAYER_REDIS_RESTORE_MS: how long after Redis lost its state no replica takes a new order. */
  restoreWindowMs: number
  /** The Redis gauges and counters, and the shared state's (metrics). */
  health: RedisHealthHooks
  stateHooks?: SharedStateHooks
  /** The connection to use instead of one to `url` (the simulator's Redis). */
  connection?: RedisConnection
}

/**
 * Relayer replicas sharing one Redis (docs/scaling.md): the connection, the claims
 * (leases fenced by the epoch, renewed by the heartbeat, which also publishes the
 * pending tx of every order held here), the outcomes (kept true across reorgs,
 * followReorgs.ts), the rate-limit buckets, and the
 * shared state that fails closed. `refusal` is the pipeline's gate for a new order.
 */
export function createReplicas(url: string, options: ReplicasOptions) {
  const { logger } = options
  const redis = createSharedRedis(url, { logger, health: options.health, prefix: options.prefix, ...(options.connection ? { connection: options.connection } : {}) })
  const heartbeatMs = Math.max(50, Math.min(500, Math.floor(options.restoreWindowMs / 4)))
  const state = createSharedState(redis, { logger, restoreWindowMs: options.restoreWindowMs, heartbeatMs, ...(options.stateHooks ? { hooks: options.stateHooks } : {}) })
  const claims = createRedisClaims(redis, { leaseMs: claimLeaseMs, fence: state })
  const outcomes = createSharedOutcomes(redis)
  followReorgs(options.journal, outcomes)
  let refused = 0
  // The pending tx published for each order held here, so that a replica dying with it
  // in the pool leaves the others its hash (answerFromReplicas reads it once the lease ends).
  const publishedPending = new Map<Hex, Hex>()
  // Asked for beside the heartbeat's renewal, so that its one call carries them.
  function queueHeldPending(): Promise<unknown> {
    for (const orderHash of publishedPending.keys()) if (!claims.shared(orderHash)) publishedPending.delete(orderHash)
    const writes: Promise<void>[] = []
    for (const orderHash of claims.heldInRedis()) {
      const slot = options.journal.byOrder(orderHash)
      if (slot?.status !== 'pending' || publishedPending.get(orderHash) === slot.txHash) continue
      const txHash = slot.txHash
      writes.push(claims.publish(orderHash, { status: 'pending', txHash }).then((ok) => void (ok && publishedPending.set(orderHash, txHash))))
    }
    return Promise.all(writes)
  }
  // Txs announced while Redis failed to answer, then never broadcast: what Redis may hold
  // of them is taken back once it answers (beside the heartbeat), or the order's outcome
  // would name a tx no chain will see.
  // txHash → orderHash.
  const unsent = new Map<Hex, Hex>()
  function takeBackUnsent(): Promise<unknown> {
    return Promise.all([...unsent].map(([txHash, orderHash]) => outcomes.unannounce(orderHash, txHash).then((ok) => void (ok && unsent.delete(txHash)))))
  }

  return {
    redis,
    claims,
    outcomes,
    state,
    /** Orders refused because the shared state was not whole. */
    get refused() {
      return refused
    },
    /**
     * Whether this replica may take the order as new: undefined while the shared state
     * is whole and the order's claim is held in Redis; else UPSTREAM_RPC saying the
     * shared state is unavailable (another replica may hold the order: it is never
     * sent twice). Asked only for an order this replica's journal does not answer.
     */
    refusal(orderHash: Hex): RelayError | undefined {
      if (state.whole && claims.shared(orderHash)) return undefined
      refused++
      const why = state.view.reason ?? 'the shared state (Redis, RELAYER_REDIS_URL) is unavailable: this order\'s claim could not be taken there'
      return new RelayError('UPSTREAM_RPC', `${why} (an order another replica may hold is never sent twice); retry shortly or try another relayer`)
    },
    /**
     * Asked once a batch is signed and checked, before it is written or sent: each order's
     * tx published as pending while this replica's claim still holds (one call for the
     * batch), so that a replica taking the claim once its lease ends (this one cut off from
     * Redis, or dead) finds the tx and never sends the order again. Undefined when every tx
     * was published; else, by index, the answer of each order that must not be sent
     * (UPSTREAM_RPC: its claim was lost, or Redis failed).
     */
    async announce(txs: readonly { orderHash: Hex; txHash: Hex }[]): Promise<Map<number, RelayError> | undefined> {
      const answers = await claims.announce(txs)
      const refusals = new Map<number, RelayError>()
      answers.forEach((answer, i) => {
        const { orderHash, txHash } = txs[i]!
        if (answer === 'published') return void publishedPending.set(orderHash, txHash)
        refused++
        if (answer === 'failed') unsent.set(txHash, orderHash)
        refusals.set(
          i,
          new RelayError(
            'UPSTREAM_RPC',
            answer === 'lost'
              ? "this order's claim in the shared state (Redis, RELAYER_REDIS_URL) was lost before its transaction was broadcast; another replica may be sending it, so nothing was sent from here; send the same request again shortly (it is answered from the replica that holds the order)"
              : 'the shared state (Redis, RELAYER_REDIS_URL) failed as this order\'s transaction was published there before its broadcast; nothing was sent; send the same request again shortly or try another relayer',
          ),
        )
      })
      return refusals.size > 0 ? refusals : undefined
    },
    /** Announced txs that are not broadcast after all (their batch is signed again at other nonces): taken back from Redis, unless a later tx of the order replaced them there. */
    notSent(txs: readonly { orderHash: Hex; txHash: Hex }[]): void {
      for (const { orderHash, txHash } of txs) unsent.set(txHash, orderHash)
    },
    shareBuckets: (local: TokenBuckets, rate: { ratePerSec: number; burst: number }) => createSharedBuckets(redis, local, rate),
    /**
     * Connects (throws naming RELAYER_REDIS_URL when it cannot), warns about settings
     * the relayer needs, then starts the heartbeat; resolves once the shared state is
     * whole (after the restore window when Redis holds no epoch yet), or after `maxWaitMs`.
     */
    async start(maxWaitMs: number): Promise<void> {
      await redis.connect()
      for (const warning of await checkRedisSettings(redis)) logger.warn(warning)
      await state.start(
        {
          renew: async (epoch) => {
            const publishing = Promise.all([queueHeldPending(), takeBackUnsent()])
            const renewed = await claims.renew(epoch)
            await publishing
            return renewed
          },
          republishClaims: () => claims.republish(),
          republishOutcomes: () => republishOutcomes(options.journal, outcomes),
        },
        maxWaitMs,
      )
    },
    /** Stops the heartbeat, lets the call in flight (if any) end, and closes the connection. */
    async stop(): Promise<void> {
      state.stop()
      await claims.idle()
      redis.close()
    },
  }
}

export type Replicas = ReturnType<typeof createReplicas>
