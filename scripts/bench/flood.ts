// Flood isolation: settlement (automine) while another client floods POST /broker with
// MALFORMED_ORDER bodies at a steady rate (autocannon in its own Node process, on
// loopback, bounded in count and time, stopped when the orders are done), against the
// same orders with no flood. GET /info is probed at 50 req/s in both, for its p99.
import type { BenchContext } from './lib/context.ts'
import { type Row, row } from './lib/report.ts'
import { type RunResult, relayerRun, settlementChecks } from './lib/settlementRuns.ts'
import { prepareWork } from './lib/settlementWork.ts'
import { type SteadyLoadResult, startSteadyLoad } from './lib/steadyLoad.ts'
import { median, sleep } from './lib/stats.ts'

export type FloodOptions = { orders: number; clients: number; rate: number }

/** The flood's and the probe's bound: no run of 2,000 orders comes near it. */
const maxSeconds = 120
const probeRate = 50

export async function benchFlood(context: BenchContext, options: FloodOptions): Promise<Row[]> {
  const work = await prepareWork(context, 'automine', { ...options, label: 'flood', baseline: false })
  const [first] = work.requests
  const malformed = JSON.stringify({ ...first!, order: { ...first!.order, amount: '10.5' } })
  const runs = { flood: [] as RunResult[], calm: [] as RunResult[] }
  const loads = { flood: [] as SteadyLoadResult[], probeFlood: [] as SteadyLoadResult[], probeCalm: [] as SteadyLoadResult[] }
  for (let run = 0; run < context.runs; run++) {
    for (const side of run % 2 === 0 ? (['calm', 'flood'] as const) : (['flood', 'calm'] as const)) {
      const alongside = async (url: string) => {
        const probe = await startSteadyLoad({ url: `${url}/info`, rate: probeRate, connections: 1, amount: probeRate * maxSeconds, seconds: maxSeconds })
        const flood =
          side === 'flood'
            ? await startSteadyLoad({
                url: `${url}/broker`,
                rate: options.rate,
                connections: 64,
                amount: options.rate * maxSeconds,
                seconds: maxSeconds,
                method: 'POST',
                body: malformed,
                headers: { 'content-type': 'application/json' },
              })
            : undefined
        // The orders begin once both loads run; a quarter of a second more lets the flood reach its rate.
        await sleep(250)
        return async () => {
          const [probed, flooded] = await Promise.all([probe.stop(), flood?.stop()])
          ;(side === 'flood' ? loads.probeFlood : loads.probeCalm).push(probed)
          if (flooded) loads.flood.push(flooded)
        }
      }
      const result = await relayerRun(context, work, { alongside })
      runs[side].push(result)
      const flooded = side === 'flood' ? loads.flood.at(-1) : undefined
      context.log(
        `flood run ${run + 1}: ${side} ${result.perSecond.toFixed(0)} orders/s, /info p99 ${(side === 'flood' ? loads.probeFlood : loads.probeCalm).at(-1)?.p99} ms` +
          (flooded ? `, flood ${flooded.perSecond.toFixed(0)} req/s ${JSON.stringify(flooded.statuses)}` : ''),
      )
    }
  }
  const { checks, failedChecks } = settlementChecks(runs.flood, runs.calm, options.orders)
  const floodTotal = loads.flood.reduce((sum, load) => sum + load.total, 0)
  const flood400 = loads.flood.reduce((sum, load) => sum + (load.statuses['400'] ?? 0), 0)
  const probes = [...loads.probeFlood, ...loads.probeCalm]
  const probeTotal = probes.reduce((sum, load) => sum + load.total, 0)
  const probe200 = probes.reduce((sum, load) => sum + (load.statuses['200'] ?? 0), 0)
  const loadFailures = [...loads.flood, ...probes].reduce((sum, load) => sum + load.errors + load.timeouts, 0)
  const failed = [...failedChecks]
  if (flood400 !== floodTotal) failed.push(`${floodTotal - flood400} flood answers were not 400`)
  if (probe200 !== probeTotal) failed.push(`${probeTotal - probe200} /info answers were not 200`)
  if (loadFailures) failed.push(`${loadFailures} connection errors or timeouts in the flood or probe`)
  const floodRates = loads.flood.map((load) => Math.round(load.perSecond)).join(', ')
  // Where the two cores go during a flood: the load generator's own share (a process on the
  // same machine, as an attacker would not be), the run's processes (anvil, the relayer, the
  // clients), and the relayer's CPU per order with and without the flood (its extra is the
  // rejections). See docs/benchmarks.md.
  const cores = (seconds: number, over: number) => (seconds / over).toFixed(2)
  const busy = (side: readonly RunResult[]) => `${Math.round(median(side.map((run) => run.coresBusy)) * 100)}%`
  const relayerCpu = (side: readonly RunResult[]) => `${median(side.map((run) => run.relayerCpuPer1000 ?? 0)).toFixed(2)} s`
  const budget = {
    'flood client cores': median(loads.flood.map((load) => Number(cores(load.cpuSeconds, load.seconds)))).toFixed(2),
    'run processes, cores busy, flood/calm': `${busy(runs.flood)}/${busy(runs.calm)}`,
    'relayer CPU per 1000 orders, flood/calm': `${relayerCpu(runs.flood)}/${relayerCpu(runs.calm)}`,
  }
  return [
    row({
      name: `flood isolation: settlement (automine), ${options.orders} orders, ${options.clients} clients, MALFORMED_ORDER flood at ${options.rate} req/s`,
      unit: 'orders/s',
      subjectName: 'orders during the flood',
      baselineName: 'the same orders, no flood',
      subject: runs.flood.map((result) => result.perSecond),
      baseline: runs.calm.map((result) => result.perSecond),
      target: { op: '>=', value: 0.8 },
      checks: { ...checks, 'flood req/s reached': floodRates, 'flood 400 answers': `${flood400}/${floodTotal}`, ...budget },
      failedChecks: failed,
    }),
    row({
      name: `flood isolation: GET /info p99 at ${probeRate} req/s`,
      unit: 'ms',
      subjectName: 'during the flood',
      baselineName: 'during the same orders, no flood',
      subject: loads.probeFlood.map((load) => load.p99),
      baseline: loads.probeCalm.map((load) => load.p99),
      checks: { ...checks, '/info 200 answers': `${probe200}/${probeTotal}` },
      failedChecks: failed,
    }),
  ]
}
