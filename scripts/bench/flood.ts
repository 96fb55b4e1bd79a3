// Flood isolation: settlement (automine) while another client floods POST /broker with
// MALFORMED_ORDER bodies at a steady rate (lib/steadyClient.ts in its own Bun process, on
// loopback, bounded in count and time, stopped when the orders are done), against the
// same orders with no flood. GET /info is probed at 50 req/s in both, for its p99.
// As information: the relayer through autocannon's flood (the same rate, in one burst a
// second per connection), and the least a
// relayer does per order (servers/leastRelayer.ts) through the same two sides as the
// relayer: the row's ratio for a server that spends the least CPU per order.
import { availableParallelism } from 'node:os'
import type { BenchContext } from './lib/context.ts'
import { type Row, row } from './lib/report.ts'
import { type RunResult, relayerRun, settlementChecks, threadChecks } from './lib/settlementRuns.ts'
import { prepareWork } from './lib/settlementWork.ts'
import { floodMaxSeconds, malformedBody, startFlood } from './lib/floodLoad.ts'
import { type SteadyLoadResult, startSteadyLoad } from './lib/steadyLoad.ts'
import { median, sleep } from './lib/stats.ts'

export type FloodOptions = { orders: number; clients: number; rate: number }

const probeRate = 50

/** One server's runs with and without the flood, and the loads that ran beside them. */
type Sides = { flood: RunResult[]; calm: RunResult[]; floods: SteadyLoadResult[]; probesFlood: SteadyLoadResult[]; probesCalm: SteadyLoadResult[] }
const emptySides = (): Sides => ({ flood: [], calm: [], floods: [], probesFlood: [], probesCalm: [] })

export async function benchFlood(context: BenchContext, options: FloodOptions): Promise<Row[]> {
  const work = await prepareWork(context, 'automine', { ...options, label: 'flood', baseline: false })
  const malformed = malformedBody(work.requests[0]!)
  // `bursts`: the relayer again, through the flood as autocannon sends it, as
  // information; its calm runs are the relayer's.
  const servers = { relayer: emptySides(), bursts: emptySides(), least: emptySides() }
  const order = [
    ['relayer', 'calm'],
    ['relayer', 'flood'],
    ['bursts', 'flood'],
    ['least', 'calm'],
    ['least', 'flood'],
  ] as const
  for (let run = 0; run < context.runs; run++) {
    // Every other run in reverse, so each server and each side goes first in turn.
    for (const [server, side] of run % 2 === 0 ? order : [...order].reverse()) {
      const sides = servers[server]
      const alongside = async (url: string) => {
        const probe = await startSteadyLoad({ url: `${url}/info`, rate: probeRate, connections: 1, amount: probeRate * floodMaxSeconds, seconds: floodMaxSeconds })
        const flood = side === 'flood' ? await startFlood(url, options.rate, malformed, server === 'bursts' ? 'autocannon' : 'steady') : undefined
        // The orders begin once both loads run; a quarter of a second more lets the flood reach its rate.
        await sleep(250)
        return async () => {
          const [probed, flooded] = await Promise.all([probe.stop(), flood?.stop()])
          ;(side === 'flood' ? sides.probesFlood : sides.probesCalm).push(probed)
          if (flooded) sides.floods.push(flooded)
        }
      }
      const result = await relayerRun(server === 'least' ? { ...context, exe: context.leastRelayerExe } : context, work, { alongside })
      sides[side].push(result)
      const flooded = side === 'flood' ? sides.floods.at(-1) : undefined
      context.log(
        `flood run ${run + 1}: ${server === 'least' ? 'least relayer, ' : server === 'bursts' ? 'autocannon bursts, ' : ''}${side} ${result.perSecond.toFixed(0)} orders/s, ${result.relayerCpuPer1000?.toFixed(2)} s CPU per 1000, machine ${Math.round(result.machine.busy * 100)}% busy (steal ${Math.round(result.machine.steal * 100)}%), /info p99 ${(side === 'flood' ? sides.probesFlood : sides.probesCalm).at(-1)?.p99} ms` +
          (flooded ? `, flood ${flooded.perSecond.toFixed(0)} req/s ${JSON.stringify(flooded.statuses)}` : ''),
      )
    }
  }
  const relayer = floodChecks(servers.relayer, options.orders)
  const least = floodChecks(servers.least, options.orders)
  const bursts = floodChecks({ ...servers.bursts, calm: servers.relayer.calm, probesCalm: servers.relayer.probesCalm }, options.orders)
  const { probesFlood, probesCalm } = servers.relayer
  const perSecond = (results: readonly RunResult[]) => results.map((result) => result.perSecond)
  return [
    row({
      name: `flood isolation: settlement (automine), ${options.orders} orders, ${options.clients} clients, MALFORMED_ORDER flood at ${options.rate} req/s`,
      unit: 'orders/s',
      subjectName: 'orders during the flood',
      baselineName: 'the same orders, no flood',
      subject: perSecond(servers.relayer.flood),
      baseline: perSecond(servers.relayer.calm),
      target: { op: '>=', value: 0.8 },
      checks: relayer.checks,
      failedChecks: relayer.failedChecks,
    }),
    row({
      name: `flood isolation: GET /info p99 at ${probeRate} req/s`,
      unit: 'ms',
      subjectName: 'during the flood',
      baselineName: 'during the same orders, no flood',
      subject: probesFlood.map((load) => load.p99),
      baseline: probesCalm.map((load) => load.p99),
      checks: { ...relayer.settled, '/info 200 answers': relayer.probe200 },
      failedChecks: relayer.failedChecks,
    }),
    // The same relayer through autocannon's flood: the same requests a second, each
    // connection's share sent in one burst at the start of its second.
    row({
      name: `flood isolation, autocannon's flood (each connection's ${Math.round(options.rate / 64)} requests a second in one burst), same relayer and orders`,
      unit: 'orders/s',
      subjectName: 'orders during the flood',
      baselineName: 'the same orders, no flood (the row above)',
      subject: perSecond(servers.bursts.flood),
      baseline: perSecond(servers.relayer.calm),
      checks: bursts.checks,
      failedChecks: bursts.failedChecks,
    }),
    // What the row above would be for the least a relayer does (its CPU per order is the
    // least, so the cores the flood leaves go furthest with it).
    row({
      name: 'flood isolation, the least relayer (servers/leastRelayer.ts), same orders and flood',
      unit: 'orders/s',
      subjectName: 'orders during the flood',
      baselineName: 'the same orders, no flood',
      subject: perSecond(servers.least.flood),
      baseline: perSecond(servers.least.calm),
      checks: least.checks,
      failedChecks: least.failedChecks,
    }),
  ]
}

/**
 * A server's checks over its flood and calm runs: settled once, none twice, no revert
 * (settlementChecks), every flood answer a 400, every probe answer a 200, no connection
 * error. And where the two cores went during the flood: the load generator's own share
 * (a process on the same machine, as an attacker would not be), the run's processes
 * (anvil, the server, the clients), and the server's CPU per order with and without the
 * flood (its extra is the rejections). See docs/benchmarks.md.
 */
function floodChecks(sides: Sides, orders: number) {
  const byThread = (label: string, runs: readonly RunResult[]) => Object.fromEntries(Object.entries(threadChecks(runs)).map(([key, value]) => [`${key}, ${label}`, value]))
  const { checks: settled, failedChecks } = settlementChecks(sides.flood, sides.calm, orders)
  const probes = [...sides.probesFlood, ...sides.probesCalm]
  const floodTotal = sides.floods.reduce((sum, load) => sum + load.total, 0)
  const flood400 = sides.floods.reduce((sum, load) => sum + (load.statuses['400'] ?? 0), 0)
  const probeTotal = probes.reduce((sum, load) => sum + load.total, 0)
  const probe200 = probes.reduce((sum, load) => sum + (load.statuses['200'] ?? 0), 0)
  const loadFailures = [...sides.floods, ...probes].reduce((sum, load) => sum + load.errors + load.timeouts, 0)
  const failed = [...failedChecks]
  if (flood400 !== floodTotal) failed.push(`${floodTotal - flood400} flood answers were not 400`)
  if (probe200 !== probeTotal) failed.push(`${probeTotal - probe200} /info answers were not 200`)
  if (loadFailures) failed.push(`${loadFailures} connection errors or timeouts in the flood or probe`)
  const percent = (share: number) => `${Math.round(share * 100)}%`
  const busy = (runs: readonly RunResult[]) => percent(median(runs.map((run) => run.coresBusy)))
  const machine = (runs: readonly RunResult[], pick: 'busy' | 'steal') => median(runs.map((run) => run.machine[pick]))
  const serverCpu = (runs: readonly RunResult[]) => median(runs.map((run) => run.relayerCpuPer1000 ?? 0))
  const floodClientCores = median(sides.floods.map((load) => load.cpuSeconds / load.seconds))
  // The cores the flood leaves for settling, as a share of what the calm runs settled with:
  // the machine's busy cores during the flood, less the flood's client and the server's
  // extra CPU (its rejections: its CPU per order above the calm runs', at the flood's
  // rate of orders), over the calm runs' busy cores. Near the measured ratio, the row is
  // bound by the machine's CPU (docs/benchmarks.md).
  const cores = availableParallelism()
  const rejectionCores = (Math.max(0, serverCpu(sides.flood) - serverCpu(sides.calm)) / 1000) * median(sides.flood.map((run) => run.perSecond))
  const leftShare = (machine(sides.flood, 'busy') * cores - floodClientCores - rejectionCores) / (machine(sides.calm, 'busy') * cores)
  return {
    settled,
    probe200: `${probe200}/${probeTotal}`,
    checks: {
      ...settled,
      'flood req/s reached': sides.floods.map((load) => Math.round(load.perSecond)).join(', '),
      'flood 400 answers': `${flood400}/${floodTotal}`,
      'flood client cores': floodClientCores.toFixed(2),
      'run processes, cores busy, flood/calm': `${busy(sides.flood)}/${busy(sides.calm)}`,
      'machine, cores busy, flood/calm': `${percent(machine(sides.flood, 'busy'))}/${percent(machine(sides.calm, 'busy'))}`,
      'machine, stolen by the hypervisor, flood/calm': `${percent(machine(sides.flood, 'steal'))}/${percent(machine(sides.calm, 'steal'))}`,
      'relayer CPU per 1000 orders, flood/calm': `${serverCpu(sides.flood).toFixed(2)} s/${serverCpu(sides.calm).toFixed(2)} s`,
      'rejections, cores': rejectionCores.toFixed(2),
      'cores left to settle during the flood, of the calm runs\'': leftShare.toFixed(2),
      ...byThread('flood', sides.flood),
      ...byThread('calm', sides.calm),
    },
    failedChecks: failed,
  }
}
