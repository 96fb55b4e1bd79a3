// scripts/profile-rejections-served.ts backs the rejection section of docs/benchmarks.md:
// each route really refused every request with the body's own code, over real HTTP, and
// every stage was measured in every round.
import { expect, test } from 'bun:test'
import { measureServedRejections, servedStages } from '../../scripts/bench/lib/servedRejections.ts'

test('every route answers every FEE_BELOW_FLOOR request 402 and MALFORMED_ORDER request 400, and is measured beside the least', async () => {
  for (const [body, status] of [['belowFloor', 402], ['malformed', 400]] as const) {
    const costs = await measureServedRejections({ body, rounds: 2, requests: 300, inFlight: 8 })
    expect(costs.map((cost) => cost.stage)).toEqual([...servedStages])
    for (const cost of costs) {
      // Two rounds of 300 each, after the warm-up: nothing but the expected refusal.
      expect({ stage: cost.stage, statuses: cost.statuses }).toEqual({ stage: cost.stage, statuses: { [status]: 600 } })
      expect(cost.us).toBeGreaterThan(0)
      expect(Number.isFinite(cost.overLeastUs)).toBe(true)
    }
    expect(costs[0]!.overLeastUs).toBe(0)
  }
}, 120_000)

test('a subset of stages always includes the least, the reference', async () => {
  const costs = await measureServedRejections({ body: 'belowFloor', rounds: 1, requests: 100, inFlight: 4, stages: ['relayer'] })
  expect(costs.map((cost) => cost.stage)).toEqual(['least', 'relayer'])
}, 60_000)
