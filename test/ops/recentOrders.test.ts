// The status page's window: orders per minute by code, latency percentiles over
// five minutes, old answers forgotten.
import { expect, test } from 'bun:test'
import { createRecentOrders } from '../../src/metrics/recentOrders.ts'

test('per-minute counts by code and nearest-rank percentiles; answers older than the window drop', () => {
  let clock = 1_000_000
  const recent = createRecentOrders(() => clock)
  expect(recent.summary()).toEqual({ perMinute: {}, latencySeconds: { count: 0, p50: null, p90: null, p99: null } })
  for (let i = 1; i <= 10; i++) recent.add('OK', i / 10)
  recent.add('WOULD_REVERT', 5)
  expect(recent.summary()).toEqual({ perMinute: { OK: 10, WOULD_REVERT: 1 }, latencySeconds: { count: 10, p50: 0.5, p90: 0.9, p99: 1 } })
  clock += 61_000
  recent.add('OK', 2)
  expect(recent.summary()).toEqual({ perMinute: { OK: 1 }, latencySeconds: { count: 11, p50: 0.6, p90: 1, p99: 2 } })
  clock += 5 * 60_000
  expect(recent.summary()).toEqual({ perMinute: {}, latencySeconds: { count: 1, p50: 2, p90: 2, p99: 2 } })
  clock += 60_001
  for (let i = 0; i < 3_000; i++) recent.add('OK', 1)
  expect(recent.summary().latencySeconds.count).toBe(3_000)
})

test('only the newest 10,000 answers are kept, in the order they came', () => {
  const clock = 5_000_000
  const recent = createRecentOrders(() => clock)
  for (let i = 0; i < 4_000; i++) recent.add('WOULD_REVERT', 9)
  for (let i = 1; i <= 10_000; i++) recent.add('OK', i)
  const kept = recent.summary()
  expect(kept.perMinute).toEqual({ OK: 10_000 })
  expect(kept.latencySeconds).toEqual({ count: 10_000, p50: 5_000, p90: 9_000, p99: 9_900 })
  recent.add('MALFORMED_ORDER', 0)
  expect(recent.summary().perMinute).toEqual({ OK: 9_999, MALFORMED_ORDER: 1 })
  expect(recent.summary().latencySeconds.p50).toBe(5_001)
})
