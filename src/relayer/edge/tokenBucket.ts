/** What `take` decided for one request. */
export type TokenVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number }

export type TokenBucketsOptions = {
  /** Tokens added per second (the sustained request rate). */
  ratePerSec: number
  /** Bucket size: requests a fresh client may make at once. */
  burst: number
  /** Hard cap on remembered clients; the least recently seen is forgotten first. */
  maxBuckets?: number
  /** How often `start` sweeps out full buckets (a full bucket is the same as none). */
  sweepMs?: number
  /** Monotonic clock in milliseconds (tests inject one). */
  now?: () => number
}

type Bucket = { tokens: number; at: number }

/** Slack for floating-point error, so a client that waited `Retry-After` always passes. */
const epsilon = 1e-9

/**
 * Token buckets keyed by client (SPEC.md 4.5 item 1): each key holds up to `burst`
 * tokens, refilled at `ratePerSec`; a request takes one token or is refused with the
 * whole seconds after which one will be there. Memory stays bounded: a full bucket
 * carries no information and is swept away, and past `maxBuckets` the least recently
 * seen key is dropped (a Map keeps insertion order; each hit re-inserts its key).
 *
 * @example
 * const buckets = createTokenBuckets({ ratePerSec: 5, burst: 20 })
 * const verdict = buckets.take('203.0.113.7')
 * if (!verdict.allowed) console.log(`retry in ${verdict.retryAfterSeconds} s`)
 */
export function createTokenBuckets(options: TokenBucketsOptions) {
  const { ratePerSec: rate, burst } = options
  const maxBuckets = options.maxBuckets ?? 100_000
  const sweepMs = options.sweepMs ?? 10_000
  const now = options.now ?? (() => performance.now())
  const buckets = new Map<string, Bucket>()
  let lastSweep = Number.NEGATIVE_INFINITY
  let timer: ReturnType<typeof setInterval> | undefined

  const refill = (bucket: Bucket, at: number) => Math.min(burst, bucket.tokens + ((at - bucket.at) / 1000) * rate)

  /** Drops every bucket that has refilled completely; returns how many went. */
  function sweep(): number {
    const at = now()
    lastSweep = at
    let dropped = 0
    for (const [key, bucket] of buckets) {
      if (refill(bucket, at) >= burst - epsilon) {
        buckets.delete(key)
        dropped++
      }
    }
    return dropped
  }

  /** Room for one more key: sweep (at most once per sweepMs under pressure), then forget the least recently seen. */
  function makeRoom(at: number) {
    if (at - lastSweep >= sweepMs) sweep()
    while (buckets.size >= maxBuckets) {
      const oldest = buckets.keys().next()
      if (oldest.done) break
      buckets.delete(oldest.value)
    }
  }

  return {
    /** Takes one token for `key`, or says how many whole seconds until one is there. */
    take(key: string): TokenVerdict {
      const at = now()
      let bucket = buckets.get(key)
      if (bucket) {
        buckets.delete(key)
        bucket.tokens = refill(bucket, at)
        bucket.at = at
      } else {
        if (buckets.size >= maxBuckets) makeRoom(at)
        bucket = { tokens: burst, at }
      }
      buckets.set(key, bucket)
      if (bucket.tokens >= 1 - epsilon) {
        bucket.tokens = Math.max(0, bucket.tokens - 1)
        return { allowed: true }
      }
      // Whole seconds until the bucket holds (just under) one token: ceil, so waiting
      // exactly this long always passes; aimed inside the epsilon band so float noise
      // cannot add a needless second.
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - epsilon / 2 - bucket.tokens) / rate)) }
    },
    sweep,
    /** Number of clients currently remembered. */
    get size() {
      return buckets.size
    },
    /** Starts the periodic sweep (unref'd: it never keeps the process alive). */
    start() {
      timer ??= setInterval(sweep, sweepMs)
      timer.unref?.()
    },
    stop() {
      if (timer) clearInterval(timer)
      timer = undefined
    },
  }
}

export type TokenBuckets = ReturnType<typeof createTokenBuckets>
