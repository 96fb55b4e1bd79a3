// `bun scripts/simulate-proofs.ts [--only NAME] [--time-budget SECONDS]`: takes each
// money-path fix of src/simulator/fixProofs.ts out of a copy of src/, runs the simulator
// on it as .ci/run does, and prints which seed found the bug and which invariant broke.
import { parseArgs } from 'node:util'
import { join } from 'node:path'
import { fixProofs } from '../src/simulator/fixProofs.ts'
import { proveFix } from '../src/simulator/proveFix.ts'

const { values } = parseArgs({ options: { only: { type: 'string' }, 'time-budget': { type: 'string', default: '120' } } })
const budgetSeconds = Number(values['time-budget'])
const chosen = fixProofs.filter((proof) => values.only === undefined || proof.name === values.only)
if (chosen.length === 0) {
  console.error(`no fix named ${values.only}; the fixes: ${fixProofs.map((proof) => proof.name).join(', ')}`)
  process.exit(2)
}
let missed = 0
console.log('| fix taken out | found at seed | invariant broken | CPU seconds |\n|---|---|---|---|')
for (const proof of chosen) {
  const result = await proveFix(join(import.meta.dir, '..'), proof, { seeds: 2_000, budgetSeconds })
  if (!result.found) missed++
  const passedOver = result.coveredFailures.length > 0 ? ` (after seeds ${result.coveredFailures.join(', ')}, which fail without its covering fixes alone)` : ''
  const foundAt = result.found ? `${result.seed}${passedOver}` : result.failsWithFix !== undefined ? `seed ${result.failsWithFix} fails with the fix in place too: replay it` : `not found in ${result.seedsRun} seeds`
  console.log(`| ${proof.fix} | ${foundAt} | ${result.invariant ?? '—'} | ${result.cpuSeconds.toFixed(1)} |`)
}
process.exit(missed > 0 ? 1 : 0)
