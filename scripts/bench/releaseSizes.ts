// Each release artifact's size (information, no target): `npm run release`
// (scripts/release.ts) into the bench's folder, every file beside the compiled bare
// Bun.serve /health server (the least an executable carrying the Bun runtime weighs).
import { statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { $ } from 'bun'
import packageJson from '../../package.json' with { type: 'json' }
import { artifactName, releaseTargets } from '../release/index.ts'
import type { BenchContext } from './lib/context.ts'
import { type Row, row } from './lib/report.ts'

/**
 * One info row per target, in MB. A target that could not be built (its runtime not
 * fetched) gets a row with a failed check naming it.
 *
 * @example
 * rows.push(...(await benchReleaseSizes(context)))
 */
export async function benchReleaseSizes(context: BenchContext): Promise<Row[]> {
  const outdir = join(context.dir, 'release')
  const started = performance.now()
  const built = await $`bun scripts/release.ts --skip-contracts --outdir ${outdir}`.cwd(resolve(import.meta.dir, '../..')).quiet().nothrow()
  context.log(`release: ${releaseTargets.length} targets built in ${((performance.now() - started) / 1000).toFixed(0)} s${built.exitCode === 0 ? '' : ` (exit ${built.exitCode}: ${built.stderr.toString().trim()})`}`)
  const bare = statSync(context.baselineExe).size / 1e6
  return releaseTargets.map((target) => {
    const name = artifactName(packageJson.version, target)
    let size = Number.NaN
    try {
      size = statSync(join(outdir, name)).size / 1e6
    } catch {}
    return row({
      name: `release artifact size: ${target.name}`,
      unit: 'MB',
      subjectName: name,
      baselineName: 'compiled bare Bun.serve (this machine)',
      subject: [size],
      baseline: [bare],
      checks: { file: name },
      failedChecks: Number.isNaN(size) ? [`${name} was not built (npm run release exit ${built.exitCode})`] : [],
    })
  })
}
