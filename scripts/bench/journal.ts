// The journal's cost: settlement (automine) with the relayer's durable journal in a
// file (RELAYER_DB = a fresh temp file) against the same runs with RELAYER_DB=:memory:.
// A write that must be durable before the broadcast has to be batched across orders
// to stay within the target, not one fsync per order. The two sides alternate in pairs;
// the checks give each pair's ratio (the machine's speed drifts between pairs, so a
// pair's two runs are the closest in time) and the relayer's CPU per order on each side.
import { join } from 'node:path'
import type { BenchContext } from './lib/context.ts'
import { type Row, row } from './lib/report.ts'
import { type RunResult, relayerRun, settlementChecks } from './lib/settlementRuns.ts'
import { prepareWork } from './lib/settlementWork.ts'
import { median, pairByPair } from './lib/stats.ts'

export type JournalOptions = { orders: number; clients: number }

export async function benchJournal(context: BenchContext, options: JournalOptions): Promise<Row[]> {
  const work = await prepareWork(context, 'automine', { ...options, label: 'journal', baseline: false })
  const runs = { file: [] as RunResult[], memory: [] as RunResult[] }
  for (let run = 0; run < context.runs; run++) {
    for (const side of run % 2 === 0 ? (['memory', 'file'] as const) : (['file', 'memory'] as const)) {
      const db = side === 'file' ? join(context.dir, `journal-${run}.db`) : ':memory:'
      const result = await relayerRun(context, work, { env: { RELAYER_DB: db } })
      runs[side].push(result)
      context.log(`journal run ${run + 1}: RELAYER_DB=${side === 'file' ? 'a file' : ':memory:'} ${result.perSecond.toFixed(0)} orders/s, statuses ${JSON.stringify(result.statuses)}`)
    }
  }
  const { checks, failedChecks } = settlementChecks(runs.file, runs.memory, options.orders)
  const cpu = (side: RunResult[]) => median(side.map((result) => result.relayerCpuPer1000 ?? Number.NaN)).toFixed(2)
  return [
    row({
      name: `journal: settlement (automine), ${options.orders} orders, ${options.clients} clients`,
      unit: 'orders/s',
      subjectName: 'RELAYER_DB = a file',
      baselineName: 'RELAYER_DB=:memory:',
      subject: runs.file.map((result) => result.perSecond),
      baseline: runs.memory.map((result) => result.perSecond),
      target: { op: '>=', value: 0.95 },
      checks: {
        ...checks,
        'pair by pair': pairByPair(runs.file.map((result) => result.perSecond), runs.memory.map((result) => result.perSecond)),
        'relayer CPU per 1000 orders': `a file ${cpu(runs.file)} s, :memory: ${cpu(runs.memory)} s`,
      },
      failedChecks,
    }),
  ]
}
