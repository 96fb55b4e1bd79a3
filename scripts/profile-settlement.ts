// `bun scripts/profile-settlement.ts [--chain automine|interval] [--orders N] [--clients C] [--out DIR]
//   [--no-profile] [--subject relayer|least|both] [--runs N] [--count-rpc] [--flood R] [--stages]`:
// one relayer-side settlement run, as `bun run bench` makes it, with the relayer run
// from source under Bun's CPU profiler (`--cpu-prof --cpu-prof-md`), so a miss of the
// relayer-CPU or interval rows can be read function by function. Prints the run's
// figures, and each profile written with its samples by part of the relayer
// (bench/lib/profileModules.ts). Not a measurement: the profiler costs CPU.
// `--subject least` runs the least a relayer does per order instead
// (bench/servers/leastRelayer.ts), `both` the two in turn, `--runs` times each, so the
// relayer's CPU per order can be read against that floor (with `--no-profile`); on
// `--chain interval` it simulates at `pending` (LEAST_SIMULATE=pending), as the bench's
// interval side does.
// `--count-rpc` puts the bench's counting proxy in front of anvil and prints the calls
// (and HTTP requests) per order. `--stages` times
// each relayer order from the wall clock: its request sent, its tx about to be signed
// (the journal's `sent_at`, after the checks, the simulation and the send queue), its tx
// seen mined (`mined_at`), p50 and p99 of each step (a relayer's time between receiving an
// order and broadcasting it is the first step plus the signing, the journal's write and
// the broadcast's round trip). `--flood R` floods POST /broker with MALFORMED_ORDER
// bodies at R req/s while the orders run, as the bench's flood row does.
import { Database } from 'bun:sqlite'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { oneOffContext } from './bench/lib/context.ts'
import type { ThreadCpu } from './bench/lib/cpu.ts'
import { malformedBody, startFlood } from './bench/lib/floodLoad.ts'
import { type CpuProfile, profileModules } from './bench/lib/profileModules.ts'
import { relayerRun } from './bench/lib/settlementRuns.ts'
import { type ChainKind, prepareWork, type SettlementWork } from './bench/lib/settlementWork.ts'
import { percentile, sleep } from './bench/lib/stats.ts'
import type { SteadyLoadResult } from './bench/lib/steadyLoad.ts'

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    chain: { type: 'string', default: 'automine' },
    orders: { type: 'string' },
    clients: { type: 'string' },
    out: { type: 'string' },
    'no-profile': { type: 'boolean', default: false },
    subject: { type: 'string', default: 'relayer' },
    runs: { type: 'string', default: '1' },
    'count-rpc': { type: 'boolean', default: false },
    flood: { type: 'string' },
    stages: { type: 'boolean', default: false },
  },
})
const chain = values.chain as ChainKind
if (chain !== 'automine' && chain !== 'interval') throw new Error(`--chain takes automine or interval (got ${values.chain})`)
const orders = Number(values.orders ?? 2_000)
const clients = Number(values.clients ?? (chain === 'interval' ? 256 : 32))
type Subject = 'relayer' | 'least'
const subjects: readonly Subject[] | undefined =
  values.subject === 'both' ? ['relayer', 'least'] : values.subject === 'relayer' || values.subject === 'least' ? [values.subject] : undefined
if (!subjects) throw new Error(`--subject takes relayer, least or both (got ${values.subject})`)
const floodRate = values.flood === undefined ? undefined : Number(values.flood)
if (floodRate !== undefined && !(Number.isInteger(floodRate) && floodRate > 0)) throw new Error(`--flood takes requests per second, a whole number from 1 (got ${values.flood})`)
const runs = Number(values.runs)
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs takes a whole number from 1 (got ${values.runs})`)
const out = resolve(values.out ?? 'bench-results/profiles')
mkdirSync(out, { recursive: true })
process.env.FOUNDRY_DISABLE_NIGHTLY_WARNING = 'true'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-profile-'))
const startedAt = Date.now()
// Each subject from source, under the profiler; `exec` keeps the pid the bench reads CPU from.
const profile = values['no-profile'] ? '' : `--cpu-prof --cpu-prof-interval 250 --cpu-prof-dir='${out}'`
const sources = { relayer: resolve(import.meta.dir, '../src/cli/main.ts'), least: resolve(import.meta.dir, 'bench/servers/leastRelayer.ts') }
const exes: Partial<Record<Subject, string>> = Object.fromEntries(
  subjects.map((subject): [Subject, string] => {
    const exe = subject === 'relayer' && process.env.PROFILE_EXE ? process.env.PROFILE_EXE : join(dir, `order-relay-${subject}`)
    if (exe !== process.env.PROFILE_EXE) writeFileSync(exe, `#!/bin/sh\nexec '${process.execPath}' ${profile} '${sources[subject]}' "$@"\n`, { mode: 0o755 })
    return [subject, exe]
  }),
)
/** Each order's steps from the wall clock: sent → about to be signed (journal `sent_at`) → seen mined (`mined_at`), p50 and p99. */
function stagesOf(journalPath: string, requests: SettlementWork['requests'], sentAt: readonly number[]): string {
  const db = new Database(journalPath, { readonly: true })
  try {
    const rows = db.query<{ order_hash: string; sent_at: number; mined_at: number | null }, []>('SELECT order_hash, sent_at, mined_at FROM slots WHERE order_hash IS NOT NULL').all()
    const byOrder = new Map(rows.map((row) => [row.order_hash.toLowerCase(), row]))
    const toSign: number[] = []
    const toMined: number[] = []
    requests.forEach((request, index) => {
      const row = request.orderHash ? byOrder.get(request.orderHash.toLowerCase()) : undefined
      const sent = sentAt[index]
      if (!row || sent === undefined) return
      toSign.push(row.sent_at - sent)
      if (row.mined_at !== null) toMined.push(row.mined_at - row.sent_at)
    })
    const show = (list: number[]) => (list.length ? `p50 ${percentile(list, 50).toFixed(0)} ms, p99 ${percentile(list, 99).toFixed(0)} ms` : 'none')
    return `order sent → its tx about to be signed: ${show(toSign)}; signed → seen mined: ${show(toMined)} (${toSign.length} orders)`
  } finally {
    db.close()
  }
}
const threadSplit = (split?: ThreadCpu) =>
  split ? `main ${split.main.toFixed(2)} s, signer ${split.signer.toFixed(2)} s, JIT compiler ${split.jit.toFixed(2)} s, other ${split.other.toFixed(2)} s` : 'no thread split'
const relayerEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('RELAYER_'))) as Record<string, string>
const contextFor = (exe: string) => oneOffContext(dir, { exe, countRpc: values['count-rpc'], relayerEnv, log: (line) => console.error(line) })
try {
  const work = await prepareWork(contextFor(''), chain, { orders, clients, label: 'profile', baseline: false })
  for (let run = 0; run < runs; run++) {
    for (const subject of subjects) {
      let flooded: SteadyLoadResult | undefined
      const alongside =
        floodRate === undefined
          ? undefined
          : async (url: string) => {
              const flood = await startFlood(url, floodRate, malformedBody(work.requests[0]!))
              await sleep(250) // as the bench's flood row: the flood reaches its rate before the orders
              return async () => {
                flooded = await flood.stop()
              }
            }
      const staged = values.stages && subject === 'relayer' ? { journal: join(dir, `stages-${run}.db`), sentAt: [] as number[] } : undefined
      const env: Record<string, string> | undefined = subject === 'least' && chain === 'interval' ? { LEAST_SIMULATE: 'pending' } : staged ? { RELAYER_DB: staged.journal } : undefined
      const result = await relayerRun(contextFor(exes[subject]!), work, { alongside, env, ...(staged ? { sentAt: staged.sentAt } : {}) })
      console.log(
        `${subject}: ${chain}, ${orders} orders, ${clients} clients: ${result.perSecond.toFixed(0)} orders/s, p50 ${result.p50.toFixed(0)} ms, p99 ${result.p99.toFixed(0)} ms, ` +
          `relayer ${result.relayerCpuPer1000?.toFixed(2)} s CPU per 1000 (${threadSplit(result.relayerThreadsPer1000)}), anvil ${result.anvilCpuPer1000.toFixed(2)} s, ` +
          `of anvil's ${((result.relayerCpuPer1000 ?? Number.NaN) / result.anvilCpuPer1000).toFixed(2)}, statuses ${JSON.stringify(result.statuses)}, settled ${result.settled}, twice ${result.twice}, reverted ${result.reverted}` +
          (result.warm
            ? `; once warm (after the first quarter): relayer ${result.warm.relayerCpuPer1000.toFixed(2)} s (${threadSplit(result.warm.threadsPer1000)}), anvil ${result.warm.anvilCpuPer1000.toFixed(2)} s, of anvil's ${(result.warm.relayerCpuPer1000 / result.warm.anvilCpuPer1000).toFixed(2)}`
            : '') +
          (result.rpcPerOrder ? `; RPC per order: ${result.rpcPerOrder}` : '') +
          (staged ? `; ${stagesOf(staged.journal, work.requests, staged.sentAt)}` : '') +
          (flooded ? `; flood ${flooded.perSecond.toFixed(0)} req/s, ${flooded.total} answers ${JSON.stringify(flooded.statuses)}` : ''),
      )
    }
  }
  if (!values['no-profile']) {
    // Each profile this invocation wrote (one per process run), its samples by part of the relayer.
    for (const name of readdirSync(out).filter((each) => each.endsWith('.cpuprofile'))) {
      const path = join(out, name)
      if (statSync(path).mtimeMs < startedAt) continue
      const parts = profileModules(JSON.parse(readFileSync(path, 'utf8')) as CpuProfile)
      console.log(`${path}: main thread by part, of the profile's samples: ${parts.map(({ name, share }) => `${name} ${(share * 100).toFixed(1)} %`).join(', ')}`)
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
