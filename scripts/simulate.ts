// `bun run simulate [--seeds N] [--from S] [--time-budget SECONDS]`: runs the deterministic
// simulator of the money path (src/simulator/, docs/testing.md) on seeds S, S+1, …; each
// seed decides one whole run (orders, timing, every fault). A failing seed is shrunk
// and printed with the invariant it broke, its last steps and the command that replays
// it; the exit code is then 1.
import { parseArgs } from 'node:util'
import { runSeeds, type SeedFailure } from '../src/simulator/index.ts'

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '100' },
    from: { type: 'string', default: '1' },
    'time-budget': { type: 'string' },
    'keep-going': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
})
if (values.help) {
  console.log(`Usage: bun run simulate [--seeds N] [--from S] [--time-budget SECONDS] [--keep-going]

  --seeds N              how many seeds to run (default 100)
  --from S               the first seed (default 1); seed S alone: --seeds 1 --from S
  --time-budget SECONDS  start no new seed after this many seconds (CI's batch)
  --keep-going           run every seed even after a failure (default: stop at the first)`)
  process.exit(0)
}
const whole = (name: string, text: string | undefined) => {
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value < 0) {
    console.error(`--${name} must be a whole number, not ${JSON.stringify(text)}`)
    process.exit(2)
  }
  return value
}
const count = whole('seeds', values.seeds)
const from = whole('from', values.from)
const budgetSeconds = values['time-budget'] === undefined ? undefined : whole('time-budget', values['time-budget'])

let lastLine = performance.now()
const report = await runSeeds({
  from,
  count,
  ...(budgetSeconds !== undefined ? { budgetSeconds } : {}),
  stopAtFirst: !values['keep-going'],
  onSeed(seed, _result, so) {
    if (performance.now() - lastLine < 5_000) return
    lastLine = performance.now()
    console.log(`seed ${seed}: ${so.ran} seeds, ${so.failures.length} failed, ${so.orders} orders, ${so.faults} faults, ${so.seconds.toFixed(0)} s`)
  },
})

for (const failure of report.failures) printFailure(failure)
const perCpu = (n: number) => (report.cpuSeconds > 0 ? n / report.cpuSeconds : 0)
console.log(
  `${report.ran} seeds (${from}…${from + report.ran - 1}): ${report.failures.length} failed; ${report.orders} orders and ${report.faults} faults simulated over ${(report.simulatedMs / 3_600_000).toFixed(1)} hours of chain time in ${report.seconds.toFixed(1)} s, ${report.cpuSeconds.toFixed(1)} s of CPU (${perCpu(report.orders).toFixed(0)} orders and ${perCpu(report.faults).toFixed(0)} faults per CPU second)`,
)
process.exit(report.failures.length > 0 ? 1 : 0)

function printFailure({ seed, plan, result, original, shrinkRuns }: SeedFailure) {
  const violation = result.violations[0] ?? original.violations[0]!
  console.log(`\nseed ${seed} broke: ${violation.invariant}`)
  console.log(`  ${violation.detail}`)
  console.log(`  shrunk in ${shrinkRuns} runs from ${original.stats.orders} orders and ${original.stats.faults} faults to ${plan.orders.length} orders and ${plan.faults.length} faults:`)
  console.log(`  block every ${plan.blockMs} ms, receipt polls every ${plan.relayer.receiptPollMs} ms; faults ${JSON.stringify(plan.faults)}`)
  console.log(`  the shrunk plan, for a regular test (runPlan): ${JSON.stringify(plan)}`)
  console.log('  last steps of the shrunk run:')
  for (const line of result.lastSteps.slice(-25)) console.log(`    ${line}`)
  console.log(`  replay the seed: bun run simulate --seeds 1 --from ${seed}`)
}
