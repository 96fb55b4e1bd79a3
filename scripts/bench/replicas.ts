// Relayer replicas (RELAYER_REDIS_URL, docs/scaling.md): two relayer processes with
// their own gas keys sharing one redis-server, the orders dealt to them in turn, against
// one relayer process, on anvil's automine with the same pre-signed orders. What the
// shared claims, outcomes and Redis round trips cost or gain in orders/s and p99, and
// how many round trips the replicas made per settled order (their own counter).
import type { BenchContext } from './lib/context.ts'
import { startRedis } from '../lib/index.ts'
import { type Row, row } from './lib/report.ts'
import { relayerRun, type RunResult, settlementChecks } from './lib/settlementRuns.ts'
import { prepareWork } from './lib/settlementWork.ts'

export type ReplicasOptions = { orders: number; clients: number }

/** Runs both sides `context.runs` times, alternating which goes first, each on a fresh devnet (and a fresh Redis). */
export async function benchReplicas(context: BenchContext, options: ReplicasOptions): Promise<Row[]> {
  const work = await prepareWork(context, 'automine', { ...options, label: 'replicas', baseline: false })
  const runs = { replicas: [] as RunResult[], single: [] as RunResult[] }
  for (let run = 0; run < context.runs; run++) {
    for (const side of run % 2 === 0 ? (['single', 'replicas'] as const) : (['replicas', 'single'] as const)) {
      let result: RunResult
      if (side === 'replicas') {
        const redis = await startRedis({ parentDir: context.dir })
        try {
          result = await relayerRun(context, work, { replicas: { redisUrl: redis.url } })
        } finally {
          await redis.stop()
        }
      } else {
        result = await relayerRun(context, work)
      }
      runs[side].push(result)
      context.log(`replicas run ${run + 1}: ${side} ${result.perSecond.toFixed(0)} orders/s, p99 ${result.p99.toFixed(0)} ms, statuses ${JSON.stringify(result.statuses)}`)
    }
  }
  const settled = settlementChecks(runs.replicas, runs.single, options.orders)
  const checks = { ...settled.checks, ...roundTripChecks(runs.replicas) }
  const { failedChecks } = settled
  return [
    row({
      name: `relayer replicas (automine), ${options.orders} orders, ${options.clients} clients`,
      unit: 'orders/s',
      subjectName: '2 replicas sharing Redis',
      baselineName: '1 relayer',
      subject: runs.replicas.map((result) => result.perSecond),
      baseline: runs.single.map((result) => result.perSecond),
      checks,
      failedChecks,
    }),
    row({
      name: 'relayer replicas (automine), p99 per order',
      unit: 'ms',
      subjectName: '2 replicas sharing Redis',
      baselineName: '1 relayer',
      subject: runs.replicas.map((result) => result.p99),
      baseline: runs.single.map((result) => result.p99),
      checks,
      failedChecks,
    }),
  ]
}

/**
 * The Redis round trips per settled order, summed over the replicas' runs (their own
 * counter, order_relay_relayer_shared_state_round_trips_total, read before and after the
 * orders), in all and by purpose (docs/scaling.md, "Round trips").
 */
export function roundTripChecks(runs: readonly RunResult[]): Record<string, string> {
  const settled = runs.reduce((total, run) => total + run.settled, 0)
  const byPurpose: Record<string, number> = {}
  for (const run of runs) for (const [purpose, count] of Object.entries(run.redisRoundTrips ?? {})) byPurpose[purpose] = (byPurpose[purpose] ?? 0) + count
  const total = Object.values(byPurpose).reduce((sum, count) => sum + count, 0)
  if (settled === 0) return {}
  const parts = Object.entries(byPurpose)
    .filter(([, count]) => count > 0)
    .map(([purpose, count]) => `${purpose} ${(count / settled).toFixed(2)}`)
  return { 'redis round trips per settled order': `${(total / settled).toFixed(2)} (${parts.join(', ')})` }
}
