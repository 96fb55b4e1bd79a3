// Relayer replicas (RELAYER_REDIS_URL, docs/scaling.md): two relayer processes with
// their own gas keys sharing one redis-server, the orders dealt to them in turn, against
// one relayer process, on anvil's automine with the same pre-signed orders. What the
// shared claims, outcomes and Redis round trips cost or gain in orders/s and p99, and
// how many round trips the replicas made per settled order (their own counter). The same
// pair of sides with the least relayer (servers/leastRelayer.ts, its claims and outcomes
// in Redis too) shows what two processes cost on the machine whatever the relayer does.
import type { BenchContext } from './lib/context.ts'
import { startRedis } from '../lib/index.ts'
import { type Row, row } from './lib/report.ts'
import { median } from './lib/stats.ts'
import { relayerRun, type RunResult, settlementChecks } from './lib/settlementRuns.ts'
import { prepareWork } from './lib/settlementWork.ts'

export type ReplicasOptions = { orders: number; clients: number }

/** Runs both sides `context.runs` times, alternating which goes first, each on a fresh devnet (and a fresh Redis). */
export async function benchReplicas(context: BenchContext, options: ReplicasOptions): Promise<Row[]> {
  const work = await prepareWork(context, 'automine', { ...options, label: 'replicas', baseline: false })
  const withLeast = context.leastRelayerExe !== ''
  const runs = { replicas: [] as RunResult[], single: [] as RunResult[], leastReplicas: [] as RunResult[], leastSingle: [] as RunResult[] }
  const sides = (['single', 'replicas', ...(withLeast ? (['leastSingle', 'leastReplicas'] as const) : [])] as const)
  for (let run = 0; run < context.runs; run++) {
    for (const side of run % 2 === 0 ? sides : [...sides].reverse()) {
      const least = side === 'leastSingle' || side === 'leastReplicas'
      const server = least ? { ...context, exe: context.leastRelayerExe } : context
      let result: RunResult
      if (side === 'replicas' || side === 'leastReplicas') {
        const redis = await startRedis({ parentDir: context.dir })
        try {
          result = await relayerRun(server, work, { replicas: { redisUrl: redis.url, ...(least ? { metrics: false as const } : {}) } })
        } finally {
          await redis.stop()
        }
      } else {
        result = await relayerRun(server, work)
      }
      runs[side].push(result)
      context.log(`replicas run ${run + 1}: ${side} ${result.perSecond.toFixed(0)} orders/s, p99 ${result.p99.toFixed(0)} ms, statuses ${JSON.stringify(result.statuses)}`)
    }
  }
  const settled = settlementChecks(runs.replicas, runs.single, options.orders)
  const checks = { ...settled.checks, ...roundTripChecks(runs.replicas) }
  const { failedChecks } = settled
  const leastRows: Row[] = []
  if (withLeast) {
    const least = settlementChecks(runs.leastReplicas, runs.leastSingle, options.orders)
    leastRows.push(
      row({
        name: 'relayer replicas, the least relayer (automine)',
        unit: 'orders/s',
        subjectName: '2 least relayers sharing Redis',
        baselineName: '1 least relayer',
        subject: runs.leastReplicas.map((result) => result.perSecond),
        baseline: runs.leastSingle.map((result) => result.perSecond),
        checks: { ...least.checks, 'p99 per order': `${median(runs.leastReplicas.map((result) => result.p99)).toFixed(0)} against ${median(runs.leastSingle.map((result) => result.p99)).toFixed(0)} ms` },
        failedChecks: least.failedChecks,
      }),
    )
  }
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
    ...leastRows,
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
