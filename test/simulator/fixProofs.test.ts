// Proof the simulator finds what matters: each money-path fix of docs/relayer-safety.md
// taken out of a copy of src/ (src/simulator/fixProofs.ts), the simulator run there on
// seeds from 1, as .ci/run runs it, finds a seed that breaks an invariant among the
// first 1,000 (each is found within .ci/run's batch of about 700); each has 240 s, for a machine busy with other
// tests. Two run at a time, one per core. A fix marked `slow` is found further on (its
// seed is in docs/testing.md; scripts/simulate-proofs.ts runs it).
import { expect, test } from 'bun:test'
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fixProofs, proveFix, type ProofResult } from '../../src/simulator/fixProofs.ts'

const root = join(import.meta.dir, '..', '..')
const invariants =
  /^(an order has two txs mined|an answer is untrue of the final chain|a client was told to sign again for an order that settled|an order refused was settled|a nonce was signed with two orders|a tx reverted that already reverted when it was signed|an order sent was lost|an order sent never settled|a slot is pending after the faults stopped|the journal and the chain disagree)$/

test('without each money-path fix, the simulator finds a broken invariant', async () => {
  const results: ProofResult[] = []
  const proofs = fixProofs.filter((proof) => !proof.slow)
  const queue = [...proofs]
  await Promise.all(
    [0, 1].map(async () => {
      for (let proof = queue.shift(); proof; proof = queue.shift()) results.push(await proveFix(root, proof, { seeds: 1_000, budgetSeconds: 240 }))
    }),
  )
  for (const result of results) if (!result.found) console.log(`${result.name}:\n${result.output.slice(-3_000)}`)
  const summary = (result: ProofResult) => ({ name: result.name, found: result.found, invariant: invariants.test(result.invariant ?? '') ? 'one of the invariants' : result.invariant })
  expect(results.map(summary).sort((a, b) => a.name.localeCompare(b.name))).toEqual(
    proofs.map((proof) => ({ name: proof.name, found: true, invariant: 'one of the invariants' })).sort((a, b) => a.name.localeCompare(b.name)),
  )
}, 900_000)

test('a patch whose code moved is an error, not a pass', async () => {
  const moved = { ...fixProofs[0]!, from: 'code that is nowhere in the file' }
  await expect(proveFix(root, moved, { seeds: 1, budgetSeconds: 1 })).rejects.toThrow(`the fix "${moved.name}" is not where its patch looks (${moved.file} holds its code 0 times, not once): update its patch in src/simulator/fixProofs.ts`)
})

test('a seed that breaks an invariant with the fix in place too is no proof of that fix', async () => {
  // A build that lacks another fix: the seed found there fails whatever the patch under proof does.
  const lacking = fixProofs.find((proof) => proof.name === 'proven-refusals')!
  const broken = mkdtempSync(join(tmpdir(), 'order-relay-proof-root-'))
  try {
    cpSync(join(root, 'src'), join(broken, 'src'), { recursive: true })
    cpSync(join(root, 'scripts', 'simulate.ts'), join(broken, 'scripts', 'simulate.ts'))
    symlinkSync(join(root, 'node_modules'), join(broken, 'node_modules'))
    const file = join(broken, lacking.file)
    writeFileSync(file, readFileSync(file, 'utf8').replace(lacking.from, lacking.to))
    // A patch that changes nothing the simulator runs: whatever it finds, the unpatched build finds too.
    const idle = { name: 'idle', fix: 'nothing', file: 'src/simulator/fixProofs.ts', from: 'export type ProofResult', to: 'export type ProofResult' }
    const result = await proveFix(broken, idle, { seeds: 1_000, budgetSeconds: 240 })
    expect(result.seed).toBeDefined()
    expect({ found: result.found, failsWithFix: result.failsWithFix }).toEqual({ found: false, failsWithFix: result.seed })
    expect(result.output).toContain(`seed ${result.seed} breaks an invariant with the fix in place too`)
  } finally {
    rmSync(broken, { recursive: true, force: true })
  }
}, 600_000)
