import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A money-path fix of docs/relayer-safety.md, and the small patch that takes it out again.
 * `slow`: the simulator finds it past what the proof test can afford to run, or not at all
 * while another fix covers the same failure (scripts/simulate-proofs.ts shows it,
 * docs/testing.md has the seed it was found at and why).
 */
export type FixProof = { name: string; fix: string; file: string; from: string; to: string; slow?: true }

/**
 * The fixes the simulator must find again when one is taken out: each a patch to the
 * copy of src/ the simulator then runs (production code never carries a switch for it).
 * The key's nonce read at the head's number (chainReads.ts) is not among them: taken
 * out, 1,064 seeds found nothing, the two rules before calling a slot `foreign` (a
 * second look, a tx the node says it mined) covering every case the simulated faults make.
 */
export const fixProofs: readonly FixProof[] = [
  {
    name: 'proven-refusals',
    fix: 'only a proven refusal frees a nonce: a send whose answer was lost may be pooled',
    file: 'src/relayer/submitter/sendRaw.ts',
    from: "  if (kind === 'nonceTaken' && known === false) return { kind: 'nonceTaken', error }\n  return { kind: 'unanswered', error }",
    to: "  if (kind === 'nonceTaken' && known === false) return { kind: 'nonceTaken', error }\n  return { kind: 'refused', error }",
  },
  {
    name: 'held-slots',
    fix: "the nonce keeper leaves alone the slots the batch sender holds (signed, broadcast not answered)",
    file: 'src/relayer/submitter/nonceKeeper.ts',
    from: 'const slots = journal.pending(slotsPerRound).filter((slot) => !life.held(slot.nonce))',
    to: 'const slots = journal.pending(slotsPerRound)',
  },
  {
    name: 'reorg-outcomes',
    fix: 'a reorg that takes a mined tx out makes its slot pending again',
    file: 'src/relayer/submitter/receiptWatcher.ts',
    from: '    life.reorged(gone)\n',
    to: '',
  },
  {
    name: 'reorg-mined-again',
    fix: 'a tx mined again after a reorg with another outcome is resolved again',
    file: 'src/relayer/submitter/receiptWatcher.ts',
    from: "const same = receipt && (receipt.status === '0x1') === (status !== 'reverted')",
    to: 'const same = receipt && status !== undefined',
  },
  {
    name: 'foreign-two-looks',
    fix: "the nonce keeper's second look before it calls a slot foreign (and again after a reorg)",
    file: 'src/relayer/submitter/nonceKeeper.ts',
    from: 'const first = suspects.get(nonce)',
    to: 'const first = { at, hash: looked.hash, time: 0 }',
  },
  {
    name: 'foreign-known-tx',
    fix: 'a slot whose tx the node says it mined is never called foreign',
    file: 'src/relayer/submitter/slotLookups.ts',
    from: '.filter((nonce) => !found.has(nonce) && !known.has(nonce))',
    to: '.filter((nonce) => !found.has(nonce))',
  },
  {
    name: 'epoch-fence',
    fix: "replicas: a claim is fenced by the shared state's epoch (none is trusted under another epoch than Redis's)",
    file: 'src/relayer/replicas/claimBatch.ts',
    from: "  elseif ARGV[a + 2] ~= current then code = -1",
    to: '  elseif false then code = -1',
  },
  {
    name: 'new-epoch-not-whole',
    fix: 'replicas: the shared state is not whole from the heartbeat that reads a new epoch',
    file: 'src/relayer/replicas/sharedState.ts',
    from: "      restoring('has a new epoch (it was started or emptied)')\n      options.hooks?.lost()",
    to: '      options.hooks?.lost()',
    slow: true,
  },
  {
    name: 'lease-renewals',
    fix: "replicas: the heartbeat renews the leases of the claims held (an order held past 10 s, a slow signer's, keeps its claim)",
    file: 'src/relayer/replicas/redisClaims.ts',
    from: '      if (held.length === 0) return { ok: true, epochMoved: false, missing: [] }\n      const answers',
    to: '      return { ok: true, epochMoved: false, missing: [] }\n      const answers',
  },
  {
    name: 'restore-window',
    fix: 'replicas: no replica takes a new order until the restore window has passed since the epoch was made',
    file: 'src/relayer/replicas/sharedState.ts',
    from: "    if (read.now < bornOf(read.epoch) + restoreWindowMs) {\n      if (view.state !== 'restoring')",
    to: "    if (false) {\n      if (view.state !== 'restoring')",
  },
  {
    name: 'announce-before-broadcast',
    fix: "replicas: each order's signed tx is published in Redis, while its claim holds, before it is broadcast",
    file: 'src/relayer/submitter/batchSender.ts',
    from: 'const refused = late?.refused ?? (options.announcer && (await refusedAtAnnounce(requests, entries, options.announcer)))',
    to: 'const refused = late?.refused',
  },
  {
    name: 'pending-republished',
    fix: 'replicas: a pending order is re-published for the whole outcome lifetime',
    file: 'src/relayer/replicas/republishOutcomes.ts',
    from: "const ttlMs = slot.status === 'pending' ? outcomeTtlMs : Math.max",
    to: 'const ttlMs = Math.max',
    slow: true,
  },
]

/**
 * What a run of the simulator on a build without one fix found (`cpuSeconds`: the CPU the
 * run took). A seed that breaks an invariant with the fix in place too proves nothing of
 * the fix: `found` is false and `failsWithFix` names it (that seed is a bug of its own).
 */
export type ProofResult = { name: string; found: boolean; seed?: number; invariant?: string; failsWithFix?: number; seedsRun: number; cpuSeconds: number; output: string }

/**
 * Copies `root`'s src/ and the simulate script into a temporary folder, takes the fix out
 * (its `from` must be found exactly once: a fix whose code moved is an error, not a pass),
 * and runs `bun scripts/simulate.ts` there on seeds from 1 within `budgetSeconds` (the
 * failing seed is not shrunk: its number and the invariant are what a proof reports).
 *
 * @example
 * const result = await proveFix('/work/main', fixProofs[0], { seeds: 2_000, budgetSeconds: 120 })
 */
export async function proveFix(root: string, proof: FixProof, options: { seeds: number; budgetSeconds: number }): Promise<ProofResult> {
  const dir = mkdtempSync(join(tmpdir(), `order-relay-proof-${proof.name}-`))
  try {
    cpSync(join(root, 'src'), join(dir, 'src'), { recursive: true })
    cpSync(join(root, 'scripts', 'simulate.ts'), join(dir, 'scripts', 'simulate.ts'))
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
    const file = join(dir, proof.file)
    const text = readFileSync(file, 'utf8')
    const count = text.split(proof.from).length - 1
    if (count !== 1) throw new Error(`the fix "${proof.name}" is not where its patch looks (${proof.file} holds its code ${count} times, not once): update its patch in src/simulator/fixProofs.ts`)
    writeFileSync(file, text.replace(proof.from, proof.to))
    const child = Bun.spawn([process.execPath, 'scripts/simulate.ts', '--seeds', String(options.seeds), '--time-budget', String(options.budgetSeconds), '--no-shrink'], { cwd: dir, stdout: 'pipe', stderr: 'pipe' })
    const [output, errors] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
    await child.exited
    const broke = /seed (\d+) broke: (.+)/.exec(output)
    const summary = /(\d+) seeds \(.*, ([\d.]+) s of CPU/.exec(output)
    const withFix = broke ? await runSeed(root, Number(broke[1])) : undefined
    return {
      name: proof.name,
      found: broke !== null && withFix?.passed === true,
      ...(broke ? { seed: Number(broke[1]), invariant: broke[2]! } : {}),
      ...(broke && withFix?.passed === false ? { failsWithFix: Number(broke[1]) } : {}),
      seedsRun: summary ? Number(summary[1]) : 0,
      cpuSeconds: summary ? Number(summary[2]) : 0,
      output: `${output}${errors}${withFix?.passed === false ? `\nseed ${broke![1]} breaks an invariant with the fix in place too:\n${withFix.output}` : ''}`,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Runs one seed on `root`'s own build (every fix in place), unshrunk: whether it passed, and what it printed. */
async function runSeed(root: string, seed: number): Promise<{ passed: boolean; output: string }> {
  const child = Bun.spawn([process.execPath, 'scripts/simulate.ts', '--seeds', '1', '--from', String(seed), '--no-shrink'], { cwd: root, stdout: 'pipe', stderr: 'pipe' })
  const [output, errors] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
  return { passed: (await child.exited) === 0, output: `${output}${errors}` }
}
