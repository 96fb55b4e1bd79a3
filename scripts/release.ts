// `npm run release`: compiles order-relay for every platform a release ships
// (scripts/release/targets.ts) into dist/release/order-relay-<version>-<os>-<arch>[.exe],
// writes SHA256SUMS beside them and prints each file's size. Bun fetches each other
// platform's runtime from the npm registry (@oven/bun-<os>-<arch>) once and caches it.
// A target that fails (its runtime cannot be fetched) is named; the others are still
// built and checksummed, and the exit code is 1.
//
//   bun scripts/release.ts [--targets linux-x64,windows-x64] [--outdir DIR] [--skip-contracts]
import { $ } from 'bun'
import { mkdir, readdir, rename, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import packageJson from '../package.json' with { type: 'json' }
import { artifactName, compile, readBuildMetadata, selectTargets, writeChecksums } from './release/index.ts'

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { targets: { type: 'string' }, outdir: { type: 'string' }, 'skip-contracts': { type: 'boolean' } },
})
const root = resolve(import.meta.dir, '..')
const outDir = resolve(values.outdir ?? join(root, 'dist/release'))
let targets
try {
  targets = selectTargets(values.targets)
} catch (error) {
  console.error(`release: ${(error as Error).message}`)
  process.exit(2)
}

if (!values['skip-contracts']) await $`bun scripts/build-contracts.ts`.cwd(root)
const metadata = readBuildMetadata(root)
console.log(`release ${packageJson.version}: commit ${metadata.commit}${metadata.dirty ? ' (dirty tree)' : ''}, built ${metadata.builtAt}, Bun ${metadata.bunVersion}`)
// The folder holds one release: the artifacts, checksums and staging folders an earlier
// run left are removed first (nothing else in it is touched).
await mkdir(outDir, { recursive: true })
for (const entry of await readdir(outDir)) {
  if (entry.startsWith('order-relay-') || entry === 'SHA256SUMS' || entry.startsWith('.staging-')) await rm(join(outDir, entry), { recursive: true, force: true })
}

const built: string[] = []
const failed: string[] = []
for (const target of targets) {
  const name = artifactName(packageJson.version, target)
  // Each target compiles in a folder of its own; only the executable is kept (Bun also
  // writes source maps beside it, which the executable embeds).
  const staging = join(outDir, `.staging-${target.name}`)
  await mkdir(staging, { recursive: true })
  const started = performance.now()
  const result = await compile({ root, outfile: join(staging, name), bunTarget: target.bunTarget, metadata })
  if (result.ok) {
    await rename(join(staging, name), join(outDir, name))
    built.push(join(outDir, name))
    const { size } = Bun.file(join(outDir, name))
    console.log(`  ${target.name.padEnd(12)} ${name}  ${(size / 1e6).toFixed(1)} MB  (${((performance.now() - started) / 1000).toFixed(1)} s)`)
  } else {
    failed.push(target.name)
    const reason = result.output.split('\n').filter((line) => /fail|error/i.test(line)).at(-1) ?? result.output.split('\n').at(-1)
    console.error(`  ${target.name.padEnd(12)} FAILED: ${reason}`)
  }
  await rm(staging, { recursive: true, force: true })
}

if (built.length > 0) {
  const sums = await writeChecksums(outDir, built)
  console.log(`wrote ${sums} (${built.length} file${built.length === 1 ? '' : 's'}; check with: cd ${outDir} && sha256sum -c SHA256SUMS)`)
}
const leftovers = (await readdir(outDir)).filter((entry) => entry.startsWith('.staging-'))
if (leftovers.length > 0) console.error(`release: staging folders left in ${outDir}: ${leftovers.join(', ')}`)
if (failed.length > 0) {
  console.error(
    `release: ${failed.length} of ${targets.length} targets failed: ${failed.join(', ')}. Bun fetches each target's runtime from the npm registry (@oven/bun-<os>-<arch>); check this machine reaches it (proxy, registry settings) and run \`npm run release\` again.`,
  )
  process.exit(1)
}
