// `bun run bench [--quick] [--only a,b] [--orders N]`: every benchmark against a devnet it starts,
// each beside a baseline measured in the same run; medians of several runs. Prints a
// Markdown table and writes bench-results/<timestamp>.json. See docs/benchmarks.md.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { $ } from 'bun'
import { startDevnet } from '../../src/devnet/index.ts'
import { indexerDefaults } from '../../src/indexer/index.ts'
import { benchActivity } from './activity.ts'
import { benchReplica } from './replica.ts'
import { benchBackfill } from './backfill.ts'
import { benchFlood } from './flood.ts'
import { benchInterval } from './interval.ts'
import { benchJournal } from './journal.ts'
import type { BenchContext } from './lib/context.ts'
import { loadAverage } from './lib/cpu.ts'
import { generateRegistryEvents } from './lib/registryEvents.ts'
import { formatTable, machine, type Row, row, writeResults } from './lib/report.ts'
import { benchRejections } from './rejections.ts'
import { benchReplicas } from './replicas.ts'
import { hasRedisServer, redisServerPath } from '../lib/index.ts'
import { benchRestart } from './restart.ts'
import { benchSettlement } from './settlement.ts'
import { benchReleaseSizes } from './releaseSizes.ts'
import { benchSigner } from './signer.ts'
import { benchStartup } from './startup.ts'
import { benchStreams } from './streams.ts'

const names = ['startup', 'release', 'rejections', 'settlement', 'signer', 'interval', 'journal', 'flood', 'replicas', 'backfill', 'activity', 'restart', 'replica', 'streams'] as const
type Name = (typeof names)[number]

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'relayer-env': { type: 'string', multiple: true },
    orders: { type: 'string' },
    'count-rpc': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
})
if (values.help) {
  console.log(`Usage: bun run bench [--quick] [--only ${names.join(',')}] [--orders N] [--count-rpc] [--relayer-env RELAYER_X=value ...]
  --orders N   orders per settlement run (settlement, interval, journal, flood, replicas; default 2000): a small N for a smoke run
  --count-rpc  settlement runs talk to anvil through a counting proxy and print JSON-RPC calls per order by method
               (a diagnosis: the proxy shares the cores, so the throughput of such a run is not a measurement)`)
  process.exit(0)
}
const relayerEnv: Record<string, string> = {}
for (const pair of values['relayer-env'] ?? []) {
  const match = /^(RELAYER_[A-Z_]+)=(.*)$/.exec(pair)
  if (!match) throw new Error(`--relayer-env takes RELAYER_NAME=value (got ${pair})`)
  relayerEnv[match[1]!] = match[2]!
}
const only = new Set((values.only ?? names.join(',')).split(',').map((name) => name.trim()))
for (const name of only) if (!names.includes(name as Name)) throw new Error(`--only: unknown benchmark ${name} (known: ${names.join(', ')})`)
const quick = values.quick ?? false
const orders = values.orders === undefined ? 2_000 : Number(values.orders)
if (!Number.isInteger(orders) || orders < 1) throw new Error(`--orders takes a positive whole number (got ${values.orders})`)
const started = performance.now()
const loadBefore = (await Bun.file('/proc/loadavg').text()).trim()
process.env.FOUNDRY_DISABLE_NIGHTLY_WARNING = 'true'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-bench-'))
const context: BenchContext = {
  exe: join(dir, 'order-relay'),
  baselineExe: join(dir, 'baseline'),
  leastRelayerExe: join(dir, 'least-relayer'),
  dir,
  runs: quick ? 1 : 5,
  quick,
  relayerEnv,
  countRpc: values['count-rpc'] ?? false,
  log: (line) => console.error(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`),
}
const loadRuns = quick ? 1 : 3
const loadSeconds = quick ? 2 : 5
const eventCount = 50_000
const rows: Row[] = []
/** Every row carries the load average when its benchmark ended (other work on the machine skews it). */
const withLoad = (done: Row[]): Row[] => done.map((r) => ({ ...r, checks: { ...r.checks, load: loadAverage() } }))
type Memory = { rssMiB: number; peakRssMiB: number; load: string }
const memory: { relayer?: Memory; indexer?: Memory; bareRssMiB?: number[] } = {}

try {
  context.log('building the executable, the baseline server and the least relayer')
  await $`bun scripts/build.ts --skip-contracts --outfile ${context.exe}`.quiet()
  await $`bun build --compile --minify scripts/bench/servers/baseline.ts --outfile ${context.baselineExe}`.quiet()
  await $`bun build --compile --minify --bytecode --format=esm scripts/bench/servers/leastRelayer.ts --outfile ${context.leastRelayerExe}`.quiet()

  if (only.has('startup')) {
    const result = await benchStartup(context, quick ? 3 : 7)
    rows.push(...withLoad(result.rows))
    memory.bareRssMiB = result.baselineRssMiB
  }
  if (only.has('release')) rows.push(...withLoad(await benchReleaseSizes(context)))
  if (only.has('rejections')) rows.push(...withLoad(await benchRejections({ ...context, runs: loadRuns }, { connections: 32, seconds: loadSeconds })))
  if (only.has('settlement')) {
    const result = await benchSettlement(context, { orders, clients: 32 })
    rows.push(...withLoad(result.rows))
    memory.relayer = { rssMiB: result.rssMiB, peakRssMiB: result.peakRssMiB, load: loadAverage() }
  }
  if (only.has('signer')) rows.push(...withLoad(await benchSigner(context, { orders, clients: 32 })))
  if (only.has('interval')) rows.push(...withLoad(await benchInterval(context, { orders, clients: 256 })))
  if (only.has('journal')) rows.push(...withLoad(await benchJournal(context, { orders, clients: 32 })))
  if (only.has('flood')) rows.push(...withLoad(await benchFlood(context, { orders, clients: 32, rate: 5_000 })))
  if (only.has('replicas')) {
    if (hasRedisServer) rows.push(...withLoad(await benchReplicas(context, { orders, clients: 32 })))
    else context.log(`replicas: skipped, ${redisServerPath} is absent (apt-get install -y redis-server)`)
  }
  if (only.has('backfill') || only.has('activity') || only.has('restart') || only.has('replica')) {
    const devnet = await startDevnet()
    try {
      context.log(`generating ${eventCount} registry events`)
      const head = await generateRegistryEvents(devnet, eventCount, 25, (done) => context.log(`  ${done} events`))
      if (only.has('backfill')) rows.push(...withLoad([await benchBackfill(context, devnet, eventCount)]))
      if (only.has('restart')) rows.push(...withLoad([await benchRestart(context, devnet, eventCount)]))
      if (only.has('activity')) {
        const result = await benchActivity({ ...context, runs: loadRuns }, devnet, head, { connections: 16, seconds: loadSeconds, retention: indexerDefaults.retention })
        rows.push(...withLoad([result.row]))
        memory.indexer = { rssMiB: result.rssMiB, peakRssMiB: result.peakRssMiB, load: loadAverage() }
      }
      if (only.has('replica')) {
        rows.push(...withLoad(await benchReplica({ ...context, runs: loadRuns }, devnet, head, { connections: 16, seconds: loadSeconds, retention: indexerDefaults.retention })))
      }
    } finally {
      await devnet.stop()
    }
  }
  if (only.has('streams')) rows.push(...withLoad(await benchStreams(context, { clients: 1_000, seconds: quick ? 4 : 10, eventsPerBlock: 4 })))
  // Memory, beside the resident memory of a compiled Bun server doing nothing.
  const bare = memory.bareRssMiB ?? []
  if (bare.length) {
    if (memory.relayer) {
      rows.push(row({ name: `relayer RSS after ${orders} orders`, unit: 'MiB', subjectName: 'order-relay relayer', baselineName: 'idle compiled Bun.serve', subject: [memory.relayer.rssMiB], baseline: bare, checks: { 'peak MiB': Math.round(memory.relayer.peakRssMiB), load: memory.relayer.load } }))
    }
    if (memory.indexer) {
      rows.push(row({ name: `indexer RSS holding ${indexerDefaults.retention} events`, unit: 'MiB', subjectName: 'order-relay indexer', baselineName: 'idle compiled Bun.serve', subject: [memory.indexer.rssMiB], baseline: bare, checks: { 'peak MiB under load': Math.round(memory.indexer.peakRssMiB), load: memory.indexer.load } }))
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}

const seconds = (performance.now() - started) / 1000
const host = machine()
const tried = Object.entries(relayerEnv).map(([key, value]) => `${key}=${value}`).join(' ')
console.log(`\norder-relay benchmarks${quick ? ' (--quick)' : ''}${context.countRpc ? ' (--count-rpc: RPC through a counting proxy, throughput not a measurement)' : ''}${tried ? ` with ${tried}` : ''}: ${host.nproc} cores, ${host.cpu}, ${host.memoryGiB} GiB, bun ${host.bun}; ${seconds.toFixed(0)} s; medians of ${context.runs} runs (load tests: ${loadRuns} × ${loadSeconds} s)\n`)
console.log(formatTable(rows))
const loadAfter = (await Bun.file('/proc/loadavg').text()).trim()
console.log(`load average before ${loadBefore}, after ${loadAfter} (other work on this machine skews the numbers)`)
const path = writeResults(rows, { quick, relayerEnv, seconds: Math.round(seconds), loadavg: { before: loadBefore, after: loadAfter } })
console.log(`\nwritten to ${path}`)
const missed = rows.filter((r) => r.pass === false && !r.unsteady)
if (missed.length) console.log(`missed: ${missed.map((r) => r.name).join('; ')} (see docs/benchmarks.md)`)
const unsteady = rows.filter((r) => r.unsteady)
if (unsteady.length) console.log(`unsteady, neither pass nor miss (the machine was disturbed during some runs; run them again with --only): ${unsteady.map((r) => r.name).join('; ')}`)
