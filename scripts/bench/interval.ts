// Settlement on an interval-mined chain (anvil --block-time 0.25, automine off, like
// Arbitrum's 250 ms blocks): N pre-signed orders from C concurrent clients through the
// relayer's POST /broker, against the same orders as pre-signed broker() transactions,
// each preceded by its eth_call, sent by C clients that each wait for their receipt
// (found once per new block, see lib/blockReceipts.ts). Throughput, latency, chain work.
// A third side, the least relayer simulating at `pending` as the relayer does
// (servers/leastRelayer.ts with LEAST_SIMULATE=pending), gives information rows: whether
// a server doing only the required work, that check included, keeps its p50 within a
// block of the baseline's where the relayer misses it.
import type { BenchContext } from './lib/context.ts'
import { type Row, row } from './lib/report.ts'
import { baselineRun, cpuBoundChecks, type RunResult, relayerRun, rpcChecks, settlementChecks } from './lib/settlementRuns.ts'
import { intervalBlockSeconds, prepareWork } from './lib/settlementWork.ts'

export type IntervalOptions = { orders: number; clients: number }

export async function benchInterval(context: BenchContext, options: IntervalOptions): Promise<Row[]> {
  const work = await prepareWork(context, 'interval', { ...options, label: 'interval', baseline: true })
  const runs = { relayer: [] as RunResult[], simulated: [] as RunResult[], least: [] as RunResult[] }
  const withLeast = context.leastRelayerExe !== ''
  const order = withLeast ? (['simulated', 'relayer', 'least'] as const) : (['simulated', 'relayer'] as const)
  for (let run = 0; run < context.runs; run++) {
    for (const side of order.map((_, i, all) => all[(i + run) % all.length]!)) {
      const result =
        side === 'relayer'
          ? await relayerRun(context, work)
          : side === 'least'
            ? await relayerRun({ ...context, exe: context.leastRelayerExe }, work, { env: { LEAST_SIMULATE: 'pending' } })
            : await baselineRun(context, work, { simulate: true })
      runs[side].push(result)
      context.log(
        `interval run ${run + 1}: ${side} ${result.perSecond.toFixed(0)} orders/s, p50 ${result.p50.toFixed(0)} ms, p99 ${result.p99.toFixed(0)} ms, anvil ${result.anvilCpuPer1000.toFixed(2)} s CPU per 1000, run CPU ${result.runCpuPer1000.toFixed(2)} s (cores ${Math.round(result.coresBusy * 100)}% busy)` +
          (result.relayerCpuPer1000 === undefined ? '' : `, relayer ${result.relayerCpuPer1000.toFixed(2)} s, statuses ${JSON.stringify(result.statuses)}`) +
          (result.rpcPerOrder ? `; RPC per order: ${result.rpcPerOrder}` : ''),
      )
    }
  }
  const { checks, failedChecks } = settlementChecks(runs.relayer, runs.simulated, options.orders)
  const pick = (results: RunResult[], key: 'perSecond' | 'p50' | 'p99' | 'anvilCpuPer1000') => results.map((result) => result[key])
  const blockMs = intervalBlockSeconds * 1000
  const name = `settlement (${intervalBlockSeconds} s blocks)`
  const sides = { subjectName: 'POST /broker', baselineName: 'pre-signed txs, eth_call before each, receipts per block' }
  const leastRows = () => {
    const least = settlementChecks(runs.least, [], options.orders)
    const leastName = `${name}, the least relayer at pending (servers/leastRelayer.ts)`
    const leastSides = { subjectName: 'servers/leastRelayer.ts, LEAST_SIMULATE=pending', baselineName: sides.baselineName }
    // The p50 of each run beside its anvil's CPU: the two states (docs/benchmarks.md) show in both.
    const perRun = (results: RunResult[]) => results.map((result) => `${result.p50.toFixed(0)} ms (anvil ${result.anvilCpuPer1000.toFixed(2)} s)`).join(', ')
    const states = { 'p50 per run, least (anvil CPU per 1000)': perRun(runs.least), relayer: perRun(runs.relayer), baseline: perRun(runs.simulated) }
    return [
      row({ name: `${leastName}, ${options.orders} orders, ${options.clients} clients`, unit: 'orders/s', ...leastSides, subject: pick(runs.least, 'perSecond'), baseline: pick(runs.simulated, 'perSecond'), checks: least.checks, failedChecks: least.failedChecks }),
      row({ name: `${leastName}, latency p50`, unit: 'ms', ...leastSides, subject: pick(runs.least, 'p50'), baseline: pick(runs.simulated, 'p50'), checks: { ...least.checks, ...states }, failedChecks: least.failedChecks }),
    ]
  }
  return [
    row({ name: `${name}, ${options.orders} orders, ${options.clients} clients`, unit: 'orders/s', ...sides, subject: pick(runs.relayer, 'perSecond'), baseline: pick(runs.simulated, 'perSecond'), target: { op: '>=', value: 0.9 }, checks: { ...checks, ...cpuBoundChecks(runs.relayer, runs.simulated) }, failedChecks }),
    row({ name: `${name}, latency p50`, unit: 'ms', ...sides, subject: pick(runs.relayer, 'p50'), baseline: pick(runs.simulated, 'p50'), target: { op: '<=', value: blockMs, of: 'difference' }, checks, failedChecks }),
    row({ name: `${name}, latency p99`, unit: 'ms', ...sides, subject: pick(runs.relayer, 'p99'), baseline: pick(runs.simulated, 'p99'), checks, failedChecks }),
    row({
      name: `chain work: anvil CPU per 1000 orders (${intervalBlockSeconds} s blocks)`,
      unit: 's',
      subjectName: 'anvil serving the relayer',
      baselineName: 'anvil serving the baseline with eth_call',
      subject: pick(runs.relayer, 'anvilCpuPer1000'),
      baseline: pick(runs.simulated, 'anvilCpuPer1000'),
      checks: { ...checks, ...rpcChecks(runs.relayer, runs.simulated) },
      failedChecks,
    }),
    ...(withLeast ? leastRows() : []),
  ]
}
