// `bun run simulate [--seeds N] [--from S] [--time-budget SECONDS] [--keep-going] [--jobs J]`:
// runs the deterministic simulator of the money path (src/simulator/, docs/testing.md) on
// seeds S, S+1, …; each seed decides one whole run (orders, timing, every fault). With
// --jobs J, J processes share the seeds (each takes every J-th: one per core). A failing
// seed is shrunk and printed with the invariant it broke, its last steps and the command
// that replays it; the exit code is then 1.
import { parseArgs } from 'node:util'
import { runSeeds, type SeedFailure, type SeedsReport } from '../src/simulator/index.ts'

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '100' },
    from: { type: 'string', default: '1' },
    'time-budget': { type: 'string' },
    'keep-going': { type: 'boolean', default: false },
    jobs: { type: 'string', default: '1' },
    // One of --jobs's processes: seeds from --from every --stride-th, its report as JSON lines.
    stride: { type: 'string', default: '1' },
    worker: { type: 'boolean', default: false },
    'no-shrink': { type: 'boolean', default: false },
    'replicas-only': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
})
if (values.help) {
  console.log(`Usage: bun run simulate [--seeds N] [--from S] [--time-budget SECONDS] [--keep-going] [--jobs J]

  --seeds N              how many seeds to run (default 100)
  --from S               the first seed (default 1); seed S alone: --seeds 1 --from S
  --time-budget SECONDS  start no new seed after this many seconds (CI's batch)
  --keep-going           run every seed even after a failure (default: stop at the first)
  --jobs J               share the seeds among J processes, one per core (default 1)
  --no-shrink            report a failing seed as it ran, without shrinking it (the fix proofs)
  --replicas-only        run only the seeds with two replicas, each under its own number
                         (the proofs of the fixes in the replicas' code)`)
  process.exit(0)
}
const whole = (name: string, text: string | undefined, least = 0) => {
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value < least) {
    console.error(`--${name} must be a whole number${least > 0 ? ` of at least ${least}` : ''}, not ${JSON.stringify(text)}`)
    process.exit(2)
  }
  return value
}
const count = whole('seeds', values.seeds)
const from = whole('from', values.from)
const jobs = whole('jobs', values.jobs, 1)
const stride = whole('stride', values.stride, 1)
const budgetSeconds = values['time-budget'] === undefined ? undefined : whole('time-budget', values['time-budget'])
const keepGoing = values['keep-going'] === true
const shrinking = values['no-shrink'] !== true
const replicasOnly = values['replicas-only'] === true

if (values.worker) {
  // A worker of --jobs: progress and its report as JSON lines, for the parent to add up.
  const report = await runSeeds({
    from,
    count,
    stride,
    ...(budgetSeconds !== undefined ? { budgetSeconds } : {}),
    stopAtFirst: !keepGoing,
    shrink: shrinking,
    replicasOnly,
    onSeed(_seed, result, so) {
      // A failure goes to the parent as soon as it is found: a long run stopped early still has it.
      if (result.violations.length > 0) console.log(JSON.stringify({ failure: so.failures.at(-1) }))
      console.log(JSON.stringify({ progress: { ...so, failures: so.failures.length } }))
    },
  })
  console.log(JSON.stringify({ report }))
  process.exit(0)
}

// Each failure is printed as it is found (a run of 100,000 seeds may be stopped before its end).
const printed = new Set<number>()
let seen: { ran: number; failures: number[] } = { ran: 0, failures: [] }
// The last seed run here (--jobs 1): with --replicas-only, seeds are skipped on the way.
let lastSeed = from - 1
let workers: ReturnType<typeof Bun.spawn>[] = []
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const worker of workers) worker.kill()
    console.log(`\nstopped (${signal}) after ${seen.ran} seeds: ${seen.failures.length} failed${seen.failures.length > 0 ? ` (seeds ${seen.failures.join(', ')}, printed above)` : ''}`)
    process.exit(seen.failures.length > 0 ? 1 : 130)
  })
}
const report = jobs === 1 ? await runHere() : await runInWorkers()
for (const failure of report.failures) printOnce(failure)
const perCpu = (n: number) => (report.cpuSeconds > 0 ? n / report.cpuSeconds : 0)
const range = jobs === 1 ? `${from}…${lastSeed}${replicasOnly ? ', replicas only' : ''}` : `from ${from}, ${jobs} processes${replicasOnly ? ', replicas only' : ''}`
console.log(
  `${report.ran} seeds (${range}): ${report.failures.length} failed; ${report.orders} orders and ${report.faults} faults simulated over ${(report.simulatedMs / 3_600_000).toFixed(1)} hours of chain time in ${report.seconds.toFixed(1)} s, ${report.cpuSeconds.toFixed(1)} s of CPU (${perCpu(report.orders).toFixed(0)} orders and ${perCpu(report.faults).toFixed(0)} faults per CPU second)`,
)
process.exit(report.failures.length > 0 ? 1 : 0)

/** Progress every 5 s: seeds run, failures, orders and faults, wall seconds. */
function progressLine(seed: number | undefined, so: { ran: number; failures: number; orders: number; faults: number; seconds: number }) {
  console.log(`${seed === undefined ? '' : `seed ${seed}: `}${so.ran} seeds, ${so.failures} failed, ${so.orders} orders, ${so.faults} faults, ${so.seconds.toFixed(0)} s`)
}

async function runHere(): Promise<SeedsReport> {
  let lastLine = performance.now()
  return runSeeds({
    from,
    count,
    ...(budgetSeconds !== undefined ? { budgetSeconds } : {}),
    stopAtFirst: !keepGoing,
    shrink: shrinking,
    replicasOnly,
    onSeed(seed, result, so) {
      lastSeed = seed
      seen = { ran: so.ran, failures: so.failures.map((failure) => failure.seed) }
      if (result.violations.length > 0) printOnce(so.failures.at(-1)!)
      if (performance.now() - lastLine < 5_000) return
      lastLine = performance.now()
      progressLine(seed, { ...so, failures: so.failures.length })
    },
  })
}

/** Runs the seeds in `jobs` processes of this script, each taking every `jobs`-th seed; their reports added up. */
async function runInWorkers(): Promise<SeedsReport> {
  const startedAt = performance.now()
  type Progress = Omit<SeedsReport, 'failures'> & { failures: number }
  const progress: Progress[] = []
  let lastLine = performance.now()
  const children = (workers = Array.from({ length: jobs }, (_, k) =>
    Bun.spawn(
      [process.execPath, import.meta.path, '--worker', '--from', String(from + k), '--stride', String(jobs), '--seeds', String(Math.ceil(Math.max(0, count - k) / jobs)), ...(budgetSeconds !== undefined ? ['--time-budget', String(budgetSeconds)] : []), ...(keepGoing ? ['--keep-going'] : []), ...(shrinking ? [] : ['--no-shrink']), ...(replicasOnly ? ['--replicas-only'] : [])],
      { stdout: 'pipe', stderr: 'inherit' },
    ),
  ))
  const reports = await Promise.all(
    children.map(async (child, k) => {
      let final: SeedsReport | undefined
      let buffered = ''
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
        buffered += chunk
        for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
          const line = buffered.slice(0, end)
          buffered = buffered.slice(end + 1)
          const message = JSON.parse(line) as { progress?: Progress; report?: SeedsReport; failure?: SeedFailure }
          if (message.report) final = message.report
          if (message.failure) {
            printOnce(message.failure)
            seen.failures.push(message.failure.seed)
          }
          if (!message.progress) continue
          progress[k] = message.progress
          seen.ran = progress.reduce((total, one) => total + (one?.ran ?? 0), 0)
          // The first failure stops every process, unless --keep-going.
          if (message.progress.failures > 0 && !keepGoing) for (const other of children) if (other !== child) other.kill()
          if (performance.now() - lastLine >= 5_000) {
            lastLine = performance.now()
            const so = progress.filter(Boolean)
            progressLine(undefined, { ...added(so), failures: so.reduce((total, one) => total + one.failures, 0), seconds: (performance.now() - startedAt) / 1_000 })
          }
        }
      }
      await child.exited
      return final
    }),
  )
  const done = reports.filter((each): each is SeedsReport => each !== undefined)
  return { ...added(done), seconds: (performance.now() - startedAt) / 1_000, failures: done.flatMap((each) => each.failures).sort((a, b) => a.seed - b.seed) }
}

/** The counts of several processes' reports, added up (CPU seconds too: the processes ran side by side). */
function added(each: Array<Pick<SeedsReport, 'ran' | 'orders' | 'faults' | 'simulatedMs' | 'cpuSeconds'>>) {
  const sum = (pick: (one: (typeof each)[number]) => number) => each.reduce((total, one) => total + pick(one), 0)
  return { ran: sum((one) => one.ran), orders: sum((one) => one.orders), faults: sum((one) => one.faults), simulatedMs: sum((one) => one.simulatedMs), cpuSeconds: sum((one) => one.cpuSeconds) }
}

/** Prints a failure unless it already was (as it was found). */
function printOnce(failure: SeedFailure) {
  if (printed.has(failure.seed)) return
  printed.add(failure.seed)
  printFailure(failure)
}

function printFailure({ seed, plan, result, original, shrinkRuns }: SeedFailure) {
  const violation = result.violations[0] ?? original.violations[0]!
  console.log(`\nseed ${seed} broke: ${violation.invariant}`)
  console.log(`  ${violation.detail}`)
  if (!shrinking) console.log(`  not shrunk (--no-shrink): ${plan.orders.length} orders and ${plan.faults.length} faults`)
  else console.log(`  shrunk in ${shrinkRuns} runs from ${original.stats.orders} orders and ${original.stats.faults} faults to ${plan.orders.length} orders and ${plan.faults.length} faults:`)
  console.log(`  block every ${plan.blockMs} ms, receipt polls every ${plan.relayer.receiptPollMs} ms; faults ${JSON.stringify(plan.faults)}`)
  console.log(`  the shrunk plan, for a regular test (runPlan): ${JSON.stringify(plan)}`)
  console.log('  last steps of the shrunk run:')
  for (const line of result.lastSteps.slice(-25)) console.log(`    ${line}`)
  console.log(`  replay the seed: bun run simulate --seeds 1 --from ${seed}`)
}
