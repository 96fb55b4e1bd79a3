// Settlement on anvil's automine (one block per transaction): N pre-signed orders from
// C concurrent clients through the relayer executable's POST /broker, against the same
// orders as pre-signed broker() transactions sent straight to anvil, each preceded by
// the eth_call a relayer must make (the target's reference) and bare (information).
// The same runs give the chain work per order (anvil's CPU) and the relayer's CPU. A
// fourth side, the least a relayer does per order (servers/leastRelayer.ts), gives that
// least's CPU beside the relayer's, as information.
import type { BenchContext } from './lib/context.ts'
import { type Row, row } from './lib/report.ts'
import { median, round } from './lib/stats.ts'
import { baselineRun, cpuBoundChecks, type RunResult, relayerRun, rpcChecks, settlementChecks, threadChecks } from './lib/settlementRuns.ts'
import { prepareWork } from './lib/settlementWork.ts'

export type SettlementOptions = { orders: number; clients: number }

export type SettlementResult = { rows: Row[]; rssMiB: number; peakRssMiB: number }

/** Runs the four sides `context.runs` times, rotating which goes first, each on a fresh devnet. */
export async function benchSettlement(context: BenchContext, options: SettlementOptions): Promise<SettlementResult> {
  const work = await prepareWork(context, 'automine', { ...options, label: 'settlement', baseline: true })
  const runs = { relayer: [] as RunResult[], simulated: [] as RunResult[], bare: [] as RunResult[], least: [] as RunResult[] }
  for (let run = 0; run < context.runs; run++) {
    const sides = (['bare', 'relayer', 'simulated', 'least'] as const).map((_, i, all) => all[(i + run) % all.length]!)
    for (const side of sides) {
      const result =
        side === 'relayer'
          ? await relayerRun(context, work)
          : side === 'least'
            ? await relayerRun({ ...context, exe: context.leastRelayerExe }, work)
            : await baselineRun(context, work, { simulate: side === 'simulated' })
      runs[side].push(result)
      context.log(
        `settlement run ${run + 1}: ${side} ${result.perSecond.toFixed(0)} orders/s, anvil ${result.anvilCpuPer1000.toFixed(2)} s CPU per 1000, run CPU ${result.runCpuPer1000.toFixed(2)} s (cores ${Math.round(result.coresBusy * 100)}% busy)` +
          (result.relayerCpuPer1000 === undefined ? '' : `, relayer ${result.relayerCpuPer1000.toFixed(2)} s, statuses ${JSON.stringify(result.statuses)}`) +
          (result.rpcPerOrder ? `; RPC per order: ${result.rpcPerOrder}` : ''),
      )
    }
  }
  const last = runs.relayer.at(-1)
  return {
    rows: settlementRows(runs, options),
    rssMiB: last?.rssMiB ?? 0,
    peakRssMiB: last?.peakRssMiB ?? 0,
  }
}

/** Each side's runs of the automine settlement. */
export type SettlementRuns = Record<'relayer' | 'simulated' | 'bare' | 'least', RunResult[]>

/**
 * The automine settlement rows. The throughput (≥ 0.95 of the baseline that simulates
 * first) and the chain work (≤ 1.05 of anvil's CPU serving that baseline) have targets;
 * the relayer's CPU against anvil's is information: on 2 cores even the least relayer
 * (servers/leastRelayer.ts) takes about half of anvil's (docs/benchmarks.md, "The targets").
 */
export function settlementRows(runs: SettlementRuns, options: SettlementOptions): Row[] {
  const { checks, failedChecks } = settlementChecks(runs.relayer, [...runs.simulated, ...runs.bare], options.orders)
  const least = settlementChecks(runs.least, [], options.orders)
  const perSecond = (results: RunResult[]) => results.map((result) => result.perSecond)
  const anvilCpu = (results: RunResult[]) => results.map((result) => result.anvilCpuPer1000)
  const serverCpu = (results: RunResult[]) => results.map((result) => result.relayerCpuPer1000 ?? Number.NaN)
  const warmServerCpu = (results: RunResult[]) => results.map((result) => result.warm?.relayerCpuPer1000 ?? Number.NaN)
  const warmAnvilCpu = (results: RunResult[]) => results.map((result) => result.warm?.anvilCpuPer1000 ?? Number.NaN)
  return [
    row({
      name: `settlement (automine), ${options.orders} orders, ${options.clients} clients`,
      unit: 'orders/s',
      subjectName: 'POST /broker',
      baselineName: 'pre-signed txs, eth_call before each',
      subject: perSecond(runs.relayer),
      baseline: perSecond(runs.simulated),
      target: { op: '>=', value: 0.95 },
      checks: { ...checks, ...cpuBoundChecks(runs.relayer, runs.simulated) },
      failedChecks,
    }),
    row({
      name: 'settlement (automine), same, bare baseline',
      unit: 'orders/s',
      subjectName: 'POST /broker',
      baselineName: 'pre-signed txs to anvil, no eth_call',
      subject: perSecond(runs.relayer),
      baseline: perSecond(runs.bare),
      checks,
      failedChecks,
    }),
    row({
      name: 'chain work: anvil CPU per 1000 orders (automine)',
      unit: 's',
      subjectName: 'anvil serving the relayer',
      baselineName: 'anvil serving the baseline with eth_call',
      subject: anvilCpu(runs.relayer),
      baseline: anvilCpu(runs.simulated),
      target: { op: '<=', value: 1.05 },
      checks: { ...checks, 'bare baseline': `${round(median(anvilCpu(runs.bare)))} s`, ...rpcChecks(runs.relayer, runs.simulated) },
      failedChecks,
    }),
    row({
      name: 'relayer CPU per 1000 settled orders, of anvil CPU',
      unit: 's',
      subjectName: 'relayer process',
      baselineName: 'anvil, same runs',
      subject: serverCpu(runs.relayer),
      baseline: anvilCpu(runs.relayer),
      checks: { ...checks, ...threadChecks(runs.relayer) },
      failedChecks,
    }),
    row({
      name: 'relayer CPU per 1000 orders once warm (after the first quarter), of anvil CPU',
      unit: 's',
      subjectName: 'relayer process',
      baselineName: 'anvil, same part of the runs',
      subject: warmServerCpu(runs.relayer),
      baseline: warmAnvilCpu(runs.relayer),
      checks: { ...checks, ...threadChecks(runs.relayer, 'warm') },
      failedChecks,
    }),
    // What the least a relayer does would score on the row above: its CPU against the
    // anvil that served the relayer (an anvil serving it works differently).
    row({
      name: 'least relayer CPU per 1000 settled orders, of anvil CPU serving the relayer',
      unit: 's',
      subjectName: 'servers/leastRelayer.ts',
      baselineName: 'anvil, the relayer runs',
      subject: serverCpu(runs.least),
      baseline: anvilCpu(runs.relayer),
      checks: {
        ...least.checks,
        'once warm': `${round(median(warmServerCpu(runs.least)))} s against ${round(median(warmAnvilCpu(runs.relayer)))} s`,
        'its own anvil': `${round(median(anvilCpu(runs.least)))} s`,
        ...threadChecks(runs.least),
      },
      failedChecks: least.failedChecks,
    }),
  ]
}
