import { RedisClient } from 'bun'
import { type Logger, redactUrl } from '../../shared/index.ts'
import { diagnoseConnect } from './diagnoseConnect.ts'

/**
 * What a round trip to Redis is for (the `purpose` label of
 * `order_relay_relayer_shared_state_round_trips_total`; docs/scaling.md lists each):
 * - `orders`: a call of claim steps (redisClaims.ts): orders' claims (each reading the
 *   order's outcome) and releases (each publishing it), of every order asking meanwhile;
 * - `heartbeat`: the epoch read, and the renewal of the claims held with the pending txs
 *   of the orders held published (one call);
 * - `waiting`: a duplicate watching the claim another request holds;
 * - `outcomes`: an outcome read or published outside a claim (a pending tx found mined, a reorg);
 * - `restoring`: claims and outcomes published again after Redis lost them;
 * - `rate-limit`: a request's token taken from its client's shared bucket (hardened edge);
 * - `settings`: the start-up check of Redis's settings.
 */
export type RoundTripPurpose = 'orders' | 'heartbeat' | 'waiting' | 'outcomes' | 'restoring' | 'rate-limit' | 'settings'

/** What the relayer's metrics hear about the shared Redis: its health, and each round trip made to it. */
export type RedisHealthHooks = { up(up: boolean): void; error(): void; roundTrip?(purpose: RoundTripPurpose): void }

/** A command's result, or `ok: false` when Redis failed (the caller falls back to local state). */
export type Attempt<T> = { ok: true; value: T } | { ok: false }

/**
 * What the replicas ask of a Redis connection: Bun's `RedisClient` in a relayer, the
 * simulated Redis in the simulator (src/simulator/simRedis.ts).
 */
export type RedisConnection = {
  send(command: string, args: string[]): Promise<unknown>
  get(key: string): Promise<string | null>
  connect(): Promise<void>
  close(): void
}

/** Longest a command may take before it counts as failed: a hung Redis must not hang orders. */
const commandTimeoutMs = 1_000
const connectTimeoutMs = 3_000

/**
 * The Redis (or Valkey) that relayer replicas share (RELAYER_REDIS_URL), through
 * Bun's built-in client (`RedisClient` from "bun": no dependency, works inside the
 * compiled executable). `connect` at start-up throws a message naming the variable
 * (the URL shown without credentials; a refused password said as such). At run time
 * every command goes through `attempt`: a failure or a command slower than 1 s is an
 * outage, logged once with a line when Redis answers again, and reported to
 * `onFailure` listeners (the shared state then takes no new order, sharedState.ts).
 * The client reconnects by itself; commands fail at once while it is disconnected.
 */
export function createSharedRedis(url: string, options: { logger: Logger; health: RedisHealthHooks; prefix: string; connection?: RedisConnection }) {
  const { logger, health } = options
  const shown = redactUrl(url)
  const client: RedisConnection =
    options.connection ??
    new RedisClient(url, {
      enableOfflineQueue: false,
      autoReconnect: true,
      maxRetries: 4_294_967_295,
      connectionTimeout: connectTimeoutMs,
    })
  let up = true
  const failureListeners: ((what: string) => void)[] = []

  function failed(what: string, error: unknown) {
    health.error()
    for (const listener of failureListeners) listener(what)
    if (!up) return
    up = false
    health.up(false)
    const code = (error as { code?: unknown })?.code
    logger.warn(
      `Redis at ${shown} (RELAYER_REDIS_URL) failed while ${what} (${typeof code === 'string' ? code : (error as Error)?.name ?? 'error'}); taking no new order until the shared state is whole again (orders this replica's journal holds are still answered; rate limits count per replica meanwhile)`,
    )
  }

  function answered() {
    if (up) return
    up = true
    health.up(true)
    logger.info(`Redis at ${shown} answers again; checking the shared state (its epoch) before taking new orders`)
  }

  return {
    /** Prefix of every key: one Redis may serve relayers of several chains and Brokers. */
    key: (...parts: string[]) => [options.prefix, ...parts].join(':'),
    get up() {
      return up
    },
    /** Calls `listener` with what was being done each time a command fails. */
    onFailure(listener: (what: string) => void) {
      failureListeners.push(listener)
    },
    /**
     * Connects at start-up (`options.connection`: that one, asked for a PING).
     * @throws Error naming RELAYER_REDIS_URL when Redis does not answer
     */
    async connect(): Promise<void> {
      let timer: ReturnType<typeof setTimeout> | undefined
      try {
        await Promise.race([
          (async () => {
            if (options.connection) {
              await client.connect()
              await client.send('PING', [])
              return
            }
            // A probe that does not reconnect, so a refused connection fails at once with its own code.
            const probe = new RedisClient(url, { enableOfflineQueue: false, autoReconnect: false, connectionTimeout: connectTimeoutMs })
            try {
              await probe.connect()
              await probe.send('PING', [])
            } finally {
              probe.close()
            }
            await client.connect()
          })(),
          new Promise((_, reject) => (timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'timeout' })), connectTimeoutMs))),
        ])
      } catch (error) {
        client.close()
        // Bun reports a refused password as a closed connection: ask Redis itself why.
        const refused = await diagnoseConnect(url)
        if (refused) throw new Error(`RELAYER_REDIS_URL ${shown}: ${refused}`)
        const code = (error as { code?: unknown })?.code
        throw new Error(
          `RELAYER_REDIS_URL ${shown} does not answer (${typeof code === 'string' ? code : 'connection failed'}): start Redis or Valkey there, check the URL and its password, or unset RELAYER_REDIS_URL to run a single relayer on local state`,
        )
      } finally {
        clearTimeout(timer)
      }
      health.up(true)
    },
    /**
     * Runs one command (one round trip, counted under `purpose`: `run` sends one
     * command, a script, or a pipeline written at once); `{ ok: false }` (the outage
     * logged once) when Redis fails or is slow.
     */
    async attempt<T>(what: string, purpose: RoundTripPurpose, run: (client: RedisConnection) => Promise<T>): Promise<Attempt<T>> {
      health.roundTrip?.(purpose)
      let timer: ReturnType<typeof setTimeout> | undefined
      try {
        const value = await Promise.race([
          run(client),
          new Promise<never>((_, reject) => (timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'timeout' })), commandTimeoutMs))),
        ])
        answered()
        return { ok: true, value }
      } catch (error) {
        failed(what, error)
        return { ok: false }
      } finally {
        clearTimeout(timer)
      }
    },
    close() {
      client.close()
    },
  }
}

export type SharedRedis = ReturnType<typeof createSharedRedis>
