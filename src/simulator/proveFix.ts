import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fixProofs, type FixProof } from './fixProofs.ts'

/**
 * What a run of the simulator on a build without one fix found (`cpuSeconds`: the CPU the
 * runs took). A seed that breaks an invariant with the fix in place too proves nothing of
 * the fix: `found` is false and `failsWithFix` names it (that seed is a bug of its own).
 * `coveredFailures`: for a fix proven with its covering fixes out (`FixProof.alsoOut`), the
 * seeds that failed the build lacking only the covering fixes too, and so were passed over.
 */
export type ProofResult = {
  name: string
  found: boolean
  seed?: number
  invariant?: string
  failsWithFix?: number
  coveredFailures: number[]
  seedsRun: number
  cpuSeconds: number
  output: string
}

/**
 * Copies `root`'s src/ and the simulate script into a temporary folder, takes the fix out
 * (with the fixes of `alsoOut`), and runs `bun scripts/simulate.ts` there on seeds from 1
 * within `budgetSeconds`; the failing seed is not shrunk: its number and the invariant are
 * what a proof reports. The seed is then run on the build with the fix in place (the root's,
 * or for `alsoOut` a copy lacking only those): it must pass there, or it is no proof. For
 * `alsoOut` such a seed is passed over and the search goes on from the next; otherwise it is
 * reported as `failsWithFix`. Each patch's `from` must be found exactly once: a fix whose code
 * moved is an error, not a pass.
 *
 * @example
 * const result = await proveFix('/work/main', fixProofs[0], { seeds: 2_000, budgetSeconds: 120 })
 */
export async function proveFix(root: string, proof: FixProof, options: { seeds: number; budgetSeconds: number }): Promise<ProofResult> {
  const covering = (proof.alsoOut ?? []).map((name) => {
    const other = fixProofs.find((candidate) => candidate.name === name)
    if (!other) throw new Error(`the fix "${proof.name}" names "${name}" among the fixes also taken out, and there is no fix of that name in src/simulator/fixProofs.ts`)
    return other
  })
  const deadline = performance.now() + options.budgetSeconds * 1_000
  const result: ProofResult = { name: proof.name, found: false, coveredFailures: [], seedsRun: 0, cpuSeconds: 0, output: '' }
  const without = buildWithout(root, proof.name, [proof, ...covering])
  let withFix: string | undefined
  try {
    if (covering.length > 0) withFix = buildWithout(root, `${proof.name}-baseline`, covering)
    for (let from = 1; from <= options.seeds; ) {
      const seconds = Math.floor((deadline - performance.now()) / 1_000)
      if (seconds <= 0) break
      const run = await simulate(without, ['--seeds', String(options.seeds - from + 1), '--from', String(from), '--time-budget', String(seconds), '--no-shrink', ...(proof.replicasOnly ? ['--replicas-only'] : [])])
      result.output += run.output
      const broke = /seed (\d+) broke: (.+)/.exec(run.output)
      const summary = /(\d+) seeds \(.*, ([\d.]+) s of CPU/.exec(run.output)
      result.seedsRun += summary ? Number(summary[1]) : 0
      result.cpuSeconds += summary ? Number(summary[2]) : 0
      if (!broke) break
      const seed = Number(broke[1])
      const check = await simulate(withFix ?? root, ['--seeds', '1', '--from', String(seed), '--no-shrink'])
      if (check.passed) return { ...result, found: true, seed, invariant: broke[2]! }
      if (!withFix) {
        return { ...result, seed, invariant: broke[2]!, failsWithFix: seed, output: `${result.output}\nseed ${seed} breaks an invariant with the fix in place too:\n${check.output}` }
      }
      result.coveredFailures.push(seed)
      from = seed + 1
    }
    return result
  } finally {
    for (const dir of [without, withFix]) if (dir) rmSync(dir, { recursive: true, force: true })
  }
}

/** A temporary copy of `root`'s src/ and simulate script with `patches` applied (the caller removes it). */
export function buildWithout(root: string, label: string, patches: readonly FixProof[]): string {
  const dir = mkdtempSync(join(tmpdir(), `order-relay-proof-${label}-`))
  cpSync(join(root, 'src'), join(dir, 'src'), { recursive: true })
  cpSync(join(root, 'scripts', 'simulate.ts'), join(dir, 'scripts', 'simulate.ts'))
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
  for (const patch of patches) {
    const file = join(dir, patch.file)
    const text = readFileSync(file, 'utf8')
    const count = text.split(patch.from).length - 1
    if (count !== 1) {
      rmSync(dir, { recursive: true, force: true })
      throw new Error(`the fix "${patch.name}" is not where its patch looks (${patch.file} holds its code ${count} times, not once): update its patch in src/simulator/fixProofs.ts`)
    }
    writeFileSync(file, text.replace(patch.from, patch.to))
  }
  return dir
}

/** `bun scripts/simulate.ts` in `cwd` with `args`: whether every seed passed, and what it printed. */
async function simulate(cwd: string, args: string[]): Promise<{ passed: boolean; output: string }> {
  const child = Bun.spawn([process.execPath, 'scripts/simulate.ts', ...args], { cwd, stdout: 'pipe', stderr: 'pipe' })
  const [output, errors] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
  return { passed: (await child.exited) === 0, output: `${output}${errors}` }
}
