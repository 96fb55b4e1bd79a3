// Proof the simulator finds what matters: each money-path fix of docs/relayer-safety.md
// taken out of a copy of src/ (src/simulator/fixProofs.ts), the simulator run there on
// seeds from 1, as .ci/run runs it, finds a seed that breaks an invariant among the
// first 1,000 (each is found within .ci/run's batch of about 600). The costliest takes about
// 80 s of CPU; each has 480 s, for a slower machine. Two run at a time, one per core. A
// fix another one covers is proven with that one taken out too (`alsoOut`), on seeds that
// pass once the fix is back.
import { expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { fixProofs } from '../../src/simulator/fixProofs.ts'
import { buildWithout, proveFix, type ProofResult } from '../../src/simulator/proveFix.ts'

const root = join(import.meta.dir, '..', '..')
const invariants =
  /^(an order has two txs mined|an answer is untrue of the final chain|a client was told to sign again for an order that settled|an order refused was settled|a nonce was signed with two orders|a tx reverted that already reverted when it was signed|an order sent was lost|an order sent never settled|a slot is pending after the faults stopped|the journal and the chain disagree)$/

test('without each money-path fix, the simulator finds a broken invariant', async () => {
  const results: ProofResult[] = []
  const proofs = fixProofs
  // The replicas' proofs, last in the list, cost the most CPU (their seeds run two relayers and a Redis): first here, so the two lanes end together.
  const queue = [...proofs].reverse()
  await Promise.all(
    [0, 1].map(async () => {
      for (let proof = queue.shift(); proof; proof = queue.shift()) results.push(await proveFix(root, proof, { seeds: 1_000, budgetSeconds: 480 }))
    }),
  )
  for (const result of results) if (!result.found) console.log(`${result.name}:\n${result.output.slice(-3_000)}`)
  const summary = (result: ProofResult) => ({ name: result.name, found: result.found, invariant: invariants.test(result.invariant ?? '') ? 'one of the invariants' : result.invariant })
  expect(results.map(summary).sort((a, b) => a.name.localeCompare(b.name))).toEqual(
    proofs.map((proof) => ({ name: proof.name, found: true, invariant: 'one of the invariants' })).sort((a, b) => a.name.localeCompare(b.name)),
  )
}, 1_200_000)

test('a patch whose code moved is an error, not a pass', async () => {
  const moved = { ...fixProofs[0]!, from: 'code that is nowhere in the file' }
  await expect(proveFix(root, moved, { seeds: 1, budgetSeconds: 1 })).rejects.toThrow(`the fix "${moved.name}" is not where its patch looks (${moved.file} holds its code 0 times, not once): update its patch in src/simulator/fixProofs.ts`)
})

test('a seed that breaks an invariant with the fix in place too is no proof of that fix', async () => {
  // A build that lacks another fix: the seed found there fails whatever the patch under proof does.
  const lacking = fixProofs.find((proof) => proof.name === 'proven-refusals')!
  const broken = buildWithout(root, 'root', [lacking])
  try {
    // A patch that changes nothing the simulator runs: whatever it finds, the unpatched build finds too.
    const idle = { name: 'idle', fix: 'nothing', file: 'src/simulator/proveFix.ts', from: 'export type ProofResult', to: 'export type ProofResult' }
    const result = await proveFix(broken, idle, { seeds: 1_000, budgetSeconds: 240 })
    expect(result.seed).toBeDefined()
    expect({ found: result.found, failsWithFix: result.failsWithFix }).toEqual({ found: false, failsWithFix: result.seed })
    expect(result.output).toContain(`seed ${result.seed} breaks an invariant with the fix in place too`)
  } finally {
    rmSync(broken, { recursive: true, force: true })
  }
}, 600_000)

test('a fix proven with its covering fixes out passes over the seeds that fail without those alone', async () => {
  // A patch that changes nothing, "covered" by the proven refusals: every seed it finds fails without the proven refusals alone.
  const idle = { name: 'idle-covered', fix: 'nothing', file: 'src/simulator/proveFix.ts', from: 'export type ProofResult', to: 'export type ProofResult', alsoOut: ['proven-refusals'] }
  const result = await proveFix(root, idle, { seeds: 70, budgetSeconds: 240 })
  // Seed 63 is where the proven refusals' own proof finds them (docs/testing.md).
  expect({ found: result.found, failsWithFix: result.failsWithFix, seedsRun: result.seedsRun }).toEqual({ found: false, failsWithFix: undefined, seedsRun: 70 })
  expect(result.coveredFailures).toContain(63)
  await expect(proveFix(root, { ...idle, alsoOut: ['no-such-fix'] }, { seeds: 1, budgetSeconds: 1 })).rejects.toThrow('the fix "idle-covered" names "no-such-fix" among the fixes also taken out')
}, 600_000)
