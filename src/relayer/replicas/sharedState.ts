import type { Logger } from '../../shared/index.ts'
import type { SharedRedis } from './sharedRedis.ts'

/**
 * Whether this replica may take a new order:
 * - `whole`: Redis answers and holds the state every replica published (its epoch is the one this replica knows);
 * - `unavailable`: Redis does not answer (or is slower than a second);
 * - `restoring`: Redis answers again having lost state (a new epoch): each replica
 *   re-publishes its own claims and outcomes, and none takes a new order before the
 *   restore window has passed since the epoch was born.
 */
export type SharedStateName = 'whole' | 'unavailable' | 'restoring'

/** What `/ready` and `/status` say about the shared state. */
export type SharedStateView = {
  state: SharedStateName
  /** Why it is not whole, in words (absent when whole). */
  reason?: string
  /** Since when it is not whole (ms since epoch; absent when whole). */
  since?: number
}

/** What the metrics hear: a loss of shared state found (the gauge reads the state itself). */
export type SharedStateHooks = { lost(): void }

/** What the state re-publishes once Redis lost it, and whose leases it renews. */
export type SharedStateWork = {
  /** Renews the leases of the claims this replica holds, fenced by `epoch`: -1 when the epoch moved, else the orderHashes whose claim is gone. */
  renew(epoch: string): Promise<{ ok: true; epochMoved: boolean; missing: string[] } | { ok: false }>
  /** Takes again, under the new epoch, the claims of the orders this replica is working on. */
  republishClaims(): Promise<boolean>
  /** Publishes the outcomes of this replica's pending and recent orders from its journal. */
  republishOutcomes(): Promise<boolean>
}

/**
 * The epoch: a random id, the Redis time it was born (ms) and the run id of the
 * Redis server it was born under, in one string. Read (and made when missing, or when
 * the server's run id is not the one it was born under: a restart, even from a
 * snapshot, may have lost what was written since) in one script, with Redis's clock.
 * With ARGV[2] = the epoch a replica knows, a new epoch is made only if that one is
 * still current (a replica that found its claims gone asks for one; two asking at
 * once make one). Returns {epoch, now in ms}.
 */
const epochScript = `
local info = redis.call('INFO', 'server')
local run = string.match(info, 'run_id:(%w+)') or 'unknown'
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local epoch = redis.call('GET', KEYS[1])
local stale = (not epoch) or (string.sub(epoch, -string.len(run)) ~= run) or (ARGV[2] ~= '' and epoch == ARGV[2])
if stale then
  epoch = ARGV[1] .. ':' .. tostring(now) .. ':' .. run
  redis.call('SET', KEYS[1], epoch)
end
return {epoch, tostring(now)}
`

const bornOf = (epoch: string) => Number(epoch.split(':')[1] ?? 0)

/**
 * The shared state of relayer replicas, failing closed (docs/scaling.md, "Redis
 * failing"). A heartbeat every `heartbeatMs` reads the epoch and renews this
 * replica's claim leases in two round trips. The replica takes new orders only while
 * the state is `whole`: a failed command makes it `unavailable` at once; an epoch
 * that changed, or one of its own claims gone, makes it `restoring` until it has
 * re-published its claims and outcomes and the restore window has passed since the
 * epoch was born (on Redis's clock, so every replica waits for the same moment).
 * Orders this replica's journal holds are answered all along.
 */
export function createSharedState(redis: SharedRedis, options: { logger: Logger; restoreWindowMs: number; heartbeatMs: number; hooks?: SharedStateHooks }) {
  const { logger, restoreWindowMs, heartbeatMs } = options
  const epochKey = redis.key('epoch')
  let view: SharedStateView = { state: 'unavailable', reason: 'the shared state has not been read yet', since: Date.now() }
  let epoch: string | undefined
  /** The epoch whose claims and outcomes this replica has published since it last changed. */
  let published: string | undefined
  let work: SharedStateWork | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: Promise<void> | undefined
  let stopped = false
  let wholeWaiters: (() => void)[] = []
  let everWhole = false

  function set(next: SharedStateView) {
    const was = view.state
    view = next
    if (was !== next.state) {
      if (next.state === 'whole') {
        if (everWhole) logger.info('shared state whole again (Redis answers with every replica\'s claims and outcomes): taking new orders')
        everWhole = true
        for (const wake of wholeWaiters) wake()
        wholeWaiters = []
      }
    }
  }

  function unavailable(why: string) {
    if (view.state === 'unavailable') return
    set({ state: 'unavailable', reason: `the shared state (Redis, RELAYER_REDIS_URL) is unavailable: ${why}; no new order is taken until it answers again`, since: Date.now() })
  }

  function restoring(why: string) {
    set({
      state: 'restoring',
      reason: `the shared state (Redis, RELAYER_REDIS_URL) ${why}; replicas are re-publishing their claims and outcomes, no new order is taken for ${restoreWindowMs} ms (RELAYER_REDIS_RESTORE_MS)`,
      since: view.state === 'whole' ? Date.now() : (view.since ?? Date.now()),
    })
  }

  redis.onFailure((what) => unavailable(`a command failed while ${what}`))

  async function readEpoch(bump: string): Promise<{ epoch: string; now: number } | undefined> {
    const got = await redis.attempt('reading the shared state epoch', 'heartbeat', (client) => client.send('EVAL', [epochScript, '1', epochKey, crypto.randomUUID(), bump]))
    if (!got.ok) return undefined
    const [value, now] = got.value as [string, string]
    return { epoch: value, now: Number(now) }
  }

  function adopt(next: string) {
    const first = epoch === undefined
    epoch = next
    if (!first) {
      // Not whole from this moment, before any other round trip: a claim taken under the new
      // epoch meanwhile may be of an order another replica is still sending (its claim was lost).
      restoring('has a new epoch (it was started or emptied)')
      options.hooks?.lost()
      logger.warn(
        `the shared state in Redis was lost (its epoch changed: restarted, emptied or evicted); taking no new order for ${restoreWindowMs} ms while every replica re-publishes its claims and outcomes (RELAYER_REDIS_RESTORE_MS)`,
      )
    }
  }

  async function beat(): Promise<void> {
    if (!work) return
    let read = await readEpoch('')
    if (!read) return unavailable('it does not answer')
    if (read.epoch !== epoch) adopt(read.epoch)
    const renewed = await work.renew(read.epoch)
    if (!renewed.ok) return unavailable('it does not answer')
    if (renewed.epochMoved) return void schedule(0)
    if (renewed.missing.length > 0) {
      logger.warn(
        `${renewed.missing.length} of this replica's orderHash claims are gone from Redis before their release (evicted, or Redis lost state); asking every replica to re-publish (a new epoch)`,
      )
      read = await readEpoch(read.epoch)
      if (!read) return unavailable('it does not answer')
      adopt(read.epoch)
    }
    if (published !== read.epoch || view.state === 'unavailable') {
      const born = bornOf(read.epoch)
      if (view.state !== 'restoring' && read.now < born + restoreWindowMs) restoring('has a new epoch (it was started or emptied)')
      const done = (await work.republishClaims()) && (await work.republishOutcomes())
      if (!done) return unavailable('it failed while this replica re-published its orders')
      published = read.epoch
    }
    if (read.now < bornOf(read.epoch) + restoreWindowMs) {
      if (view.state !== 'restoring') restoring('has a new epoch (it was started or emptied)')
      return
    }
    set({ state: 'whole' })
  }

  function schedule(ms: number) {
    if (stopped) return
    clearTimeout(timer)
    timer = setTimeout(() => void run(), ms)
  }

  function run(): Promise<void> {
    running ??= beat()
      .catch((error: unknown) => unavailable(`the heartbeat failed (${(error as Error)?.name ?? 'error'})`))
      .finally(() => {
        running = undefined
        schedule(heartbeatMs)
      })
    return running
  }

  return {
    /** The epoch this replica knows (claims are fenced by it); undefined before the first read. */
    get epoch() {
      return epoch
    },
    get view(): SharedStateView {
      return view
    },
    get whole() {
      return view.state === 'whole'
    },
    /** A claim found the epoch moved: not whole until the heartbeat, run at once, says so. */
    suspect() {
      if (view.state === 'whole') restoring('has a new epoch (it was started or emptied)')
      schedule(0)
    },
    /**
     * Starts the heartbeat; resolves once the state is whole, or after `maxWaitMs`
     * (the relayer then serves, refusing new orders, and `/ready` says why).
     */
    async start(renewing: SharedStateWork, maxWaitMs: number): Promise<void> {
      work = renewing
      await run()
      if (view.state === 'whole') return
      if (view.state === 'restoring') {
        logger.info(`shared state: Redis holds a new epoch; waiting ${restoreWindowMs} ms (RELAYER_REDIS_RESTORE_MS) for other replicas to re-publish their orders before taking any`)
      }
      let limit: ReturnType<typeof setTimeout> | undefined
      await Promise.race([new Promise<void>((resolve) => wholeWaiters.push(resolve)), new Promise<void>((resolve) => (limit = setTimeout(resolve, maxWaitMs)))])
      clearTimeout(limit)
    },
    stop() {
      stopped = true
      clearTimeout(timer)
      for (const wake of wholeWaiters) wake()
      wholeWaiters = []
    },
  }
}

export type SharedState = ReturnType<typeof createSharedState>
