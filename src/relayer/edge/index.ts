import type { MiddlewareHandler } from 'hono'
import type { Address, PublicClient } from 'viem'
import type { Logger } from '../../shared/index.ts'
import type { EdgeConfig } from './edgeConfig.ts'
import { createBalanceWatch } from './balanceWatch.ts'
import type { SocketReader } from './clientIp.ts'
import { concurrencyCap } from './concurrencyCap.ts'
import { createEdgeCors } from './cors.ts'
import { gasBreaker } from './gasBreaker.ts'
import { rateLimit } from './rateLimit.ts'
import type { EdgeRefusal } from './reject.ts'
import { createTokenBuckets, type TokenBuckets, type TokenVerdict } from './tokenBucket.ts'
import { describeTrustedProxies } from './trustedProxies.ts'

export { normalizeIp, type SocketReader } from './clientIp.ts'
export { type EdgeRefusal, refusalAnswer } from './reject.ts'

export type EdgeDependencies = {
  client: PublicClient
  address: Address
  logger: Logger
  /** Reads the key's balance (default: `client.getBalance`); the relayer passes one that also feeds its metrics. */
  readBalance?: () => Promise<bigint>
  /** Relayer replicas: wraps the in-memory buckets in buckets shared through Redis (they remain the fallback). */
  shareBuckets?: (local: TokenBuckets) => { take(key: string): Promise<TokenVerdict> }
}

/**
 * The edge's rules for `POST /broker`, which is answered outside hono's middleware
 * (http/brokerRoute.ts): its CORS headers, the rate limit before the body is read
 * (it needs only the client's address, so a malformed body costs a token like any
 * other request), then once the body is in, the breaker and the cap.
 */
export type BrokerGate = {
  /** The CORS headers of every answer to a request from `origin`. */
  headers(origin: string | null): Record<string, string>
  /** The rate limit: takes a token for the request's client, or refuses it. Run before the body is read. */
  limit(request: Request, server: SocketReader | undefined): EdgeRefusal | undefined | Promise<EdgeRefusal | undefined>
  /** The breaker, then the cap: a refusal, or undefined: admitted, holding a slot of the cap until `leave`. */
  admit(): EdgeRefusal | undefined
  leave(): void
}

export type Edge = {
  /** Run in this order before the hono routes (every route but `POST /broker`). Empty when the edge is off. */
  middleware: MiddlewareHandler[]
  /** The same rules for `POST /broker`; undefined when the edge is off. */
  broker?: BrokerGate
  /** Starts the background work: the bucket sweep and the balance poll. */
  start(): void
  stop(): void
}

/** Most clients the rate limiter remembers at once (least recently seen forgotten first). */
export const maxRateLimitBuckets = 100_000

/**
 * The hardened edge (SPEC.md 4.5), around the unchanged pipeline, in this order:
 * 1. CORS (answers preflights itself, so they meet neither the limit nor the breaker);
 * 2. per-client token bucket on every other request → 429 `RATE_LIMITED` + `Retry-After`;
 * 3. on `POST /broker`: gas breaker → 503 `INSUFFICIENT_RELAYER_GAS` while the polled
 *    balance is below the floor;
 * 4. on `POST /broker`: global in-flight cap → 429 `SERVER_BUSY`, never a queue.
 *
 * The first two run as hono middleware on every route but `POST /broker`; that route
 * runs all four through `broker`: the rate limit before its body is read (every request
 * counts, a junk body included), the breaker and the cap after (so the cap counts
 * orders being settled, never clients slowly sending bytes).
 *
 * @example
 * const edge = createEdge(config.edge, { client, address, logger })
 * for (const middleware of edge.middleware) app.use(middleware)
 * edge.start()
 */
export function createEdge(config: EdgeConfig, deps: EdgeDependencies): Edge {
  if (!config.enabled) return { middleware: [], start() {}, stop() {} }
  const { client, address, logger } = deps
  const buckets = createTokenBuckets({ ratePerSec: config.ratePerSec, burst: config.rateBurst, maxBuckets: maxRateLimitBuckets })
  const watch = createBalanceWatch({
    readBalance: deps.readBalance ?? (() => client.getBalance({ address })),
    floorWei: config.gasFloorWei,
    pollMs: config.balancePollMs,
    logger,
  })
  const cors = createEdgeCors({ origins: config.corsOrigins })
  const limit = rateLimit({ buckets: deps.shareBuckets ? deps.shareBuckets(buckets) : buckets, trustProxy: config.trustProxy, trustedProxies: config.trustedProxies, ratePerSec: config.ratePerSec, burst: config.rateBurst })
  const breaker = gasBreaker({ paused: watch.paused })
  const cap = concurrencyCap({ max: config.maxInflight })
  return {
    middleware: [cors.middleware, limit.middleware],
    broker: {
      headers: cors.brokerHeaders,
      limit: limit.check,
      admit: () => breaker() ?? cap.enter(),
      leave: cap.leave,
    },
    start() {
      buckets.start()
      void watch.start()
    },
    stop() {
      buckets.stop()
      watch.stop()
    },
  }
}

/** Start-up lines saying which edge features are on, with their limits. */
export function describeEdge(config: EdgeConfig): string[] {
  if (!config.enabled) return ['hardened edge: off (set RELAYER_HARDENED=1 to enable)']
  const key = config.trustProxy ? `${describeTrustedProxies(config.trustedProxies)} (RELAYER_TRUST_PROXY=1)` : 'socket address'
  const origins = config.corsOrigins.includes('*')
    ? 'any origin'
    : config.corsOrigins.length > 0
      ? `${config.corsOrigins.join(', ')} and callers without Origin`
      : 'callers without Origin only (no browser origin listed in RELAYER_CORS_ORIGINS)'
  return [
    'hardened edge: on',
    `  rate limit: ${config.ratePerSec} requests/s per client, burst ${config.rateBurst}, client = ${key}; over it 429 RATE_LIMITED with Retry-After`,
    `  concurrency cap: ${config.maxInflight} POST /broker in flight; over it 429 SERVER_BUSY at once`,
    `  gas breaker: POST /broker paused (503 INSUFFICIENT_RELAYER_GAS) while the relayer balance is below ${config.gasFloorWei} wei, polled every ${config.balancePollMs} ms`,
    `  CORS: GET /info from any origin; POST /broker from ${origins}`,
  ]
}
