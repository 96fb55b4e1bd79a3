import { describe, expect, test } from 'bun:test'
import { createTokenBuckets } from '../../src/relayer/edge/tokenBucket.ts'

/** A hand-driven clock in milliseconds. */
function manualClock() {
  let ms = 1_000_000
  return { now: () => ms, advance: (by: number) => void (ms += by) }
}

describe('createTokenBuckets', () => {
  test('a fresh client gets `burst` requests, then a Retry-After in whole seconds', () => {
    const clock = manualClock()
    const buckets = createTokenBuckets({ ratePerSec: 2, burst: 3, now: clock.now })
    expect([1, 2, 3].map(() => buckets.take('a'))).toEqual([{ allowed: true }, { allowed: true }, { allowed: true }])
    // Empty bucket, 2 tokens/s: one token in 0.5 s, rounded up to 1 s.
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 })
    // Another client has its own bucket.
    expect(buckets.take('b')).toEqual({ allowed: true })
  })

  test('waiting exactly Retry-After lets the next request pass, and only one', () => {
    const clock = manualClock()
    const buckets = createTokenBuckets({ ratePerSec: 0.4, burst: 2, now: clock.now })
    buckets.take('a')
    buckets.take('a')
    // One token takes 2.5 s at 0.4/s: Retry-After 3.
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterSeconds: 3 })
    clock.advance(2_000)
    // 0.8 token after 2 s: 0.2 missing, 0.5 s → 1.
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 })
    clock.advance(1_000)
    expect(buckets.take('a')).toEqual({ allowed: true })
    // 0.2 left: 0.8 missing → 2 s.
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterSeconds: 2 })
    clock.advance(2_000)
    expect(buckets.take('a')).toEqual({ allowed: true })
  })

  test('Retry-After is honoured for awkward rates (no floating-point shortfall)', () => {
    for (const ratePerSec of [0.1, 0.3, 1 / 3, 0.7, 1, 3, 7, 10]) {
      const clock = manualClock()
      const buckets = createTokenBuckets({ ratePerSec, burst: 1, now: clock.now })
      for (let round = 0; round < 50; round++) {
        const verdict = buckets.take('a')
        if (verdict.allowed) continue
        const wait = verdict.retryAfterSeconds
        expect(wait).toBeGreaterThanOrEqual(1)
        expect(wait).toBeLessThanOrEqual(Math.ceil(1 / ratePerSec))
        // Tight: one second less is not enough (refusals take no token, so probing is free)...
        if (wait > 1) {
          clock.advance((wait - 1) * 1000)
          expect(buckets.take('a').allowed).toBe(false)
          clock.advance(1000)
        } else {
          clock.advance(1000)
        }
        // ...and exactly Retry-After is.
        expect(buckets.take('a')).toEqual({ allowed: true })
      }
    }
  })

  test('refill never exceeds the burst', () => {
    const clock = manualClock()
    const buckets = createTokenBuckets({ ratePerSec: 100, burst: 2, now: clock.now })
    clock.advance(60_000)
    expect([1, 2, 3].map(() => buckets.take('a').allowed)).toEqual([true, true, false])
  })

  test('sweep forgets clients whose bucket has refilled, and only those', () => {
    const clock = manualClock()
    const buckets = createTokenBuckets({ ratePerSec: 1, burst: 5, now: clock.now })
    buckets.take('idle')
    clock.advance(500)
    for (let i = 0; i < 5; i++) buckets.take('busy')
    expect(buckets.size).toBe(2)
    expect(buckets.sweep()).toBe(0)
    clock.advance(600) // idle: 4 + 1.1 ≥ 5 → full; busy: 0 + 0.6 → not full
    expect(buckets.sweep()).toBe(1)
    expect(buckets.size).toBe(1)
    // The busy client is still limited: forgetting it would hand it a fresh burst.
    expect(buckets.take('busy')).toEqual({ allowed: false, retryAfterSeconds: 1 })
  })

  test('100k distinct clients: the map never grows past maxBuckets', () => {
    const clock = manualClock()
    const buckets = createTokenBuckets({ ratePerSec: 1, burst: 2, maxBuckets: 5_000, now: clock.now })
    let largest = 0
    for (let i = 0; i < 100_000; i++) {
      buckets.take(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`)
      largest = Math.max(largest, buckets.size)
      if (i % 1000 === 0) clock.advance(1)
    }
    expect(largest).toBe(5_000)
    expect(buckets.size).toBe(5_000)
    // Once they have all refilled, a sweep empties the map.
    clock.advance(2_000)
    expect(buckets.sweep()).toBe(5_000)
    expect(buckets.size).toBe(0)
  })

  test('at the cap the least recently seen client is forgotten, not an active one', () => {
    const clock = manualClock()
    const buckets = createTokenBuckets({ ratePerSec: 1, burst: 1, maxBuckets: 3, now: clock.now })
    buckets.take('a')
    buckets.take('b')
    buckets.take('c')
    buckets.take('a') // refused, but 'a' is now the most recent
    buckets.take('d') // evicts 'b'
    expect(buckets.size).toBe(3)
    expect(buckets.take('a').allowed).toBe(false)
    expect(buckets.take('b').allowed).toBe(true) // 'b' was forgotten: fresh bucket
  })

  test('start/stop run a periodic sweep', async () => {
    const buckets = createTokenBuckets({ ratePerSec: 1000, burst: 1, sweepMs: 20 })
    buckets.take('a')
    buckets.start()
    await Bun.sleep(80)
    expect(buckets.size).toBe(0)
    buckets.stop()
  })
})
