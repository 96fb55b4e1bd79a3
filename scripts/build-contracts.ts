// Builds contracts/ with the project's forge (node_modules/.bin/forge, solc-js through bin/solc.mjs)
// and regenerates src/chain/generated/artifacts.ts.
//
//   bun scripts/build-contracts.ts            build if a source is newer than the last build, then generate
//   bun scripts/build-contracts.ts --force    clean rebuild, then generate
//   bun scripts/build-contracts.ts --check    build as above, then only check the generated module (CI)
//
// Compiler and linter warnings fail the build (`forge build --deny warnings`).
//
// forge is the project's own (@foundry-rs/forge in node_modules), never a global one. We run the
// native binary that node_modules/.bin/forge would start, not the shim itself: the shim (bin.mjs of
// @foundry-rs/forge 1.7.1) does not pass forge's exit code on, so a failed build would look successful.
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'

const root = join(import.meta.dir, '..')
const contractsDir = join(root, 'contracts')
const outDir = join(contractsDir, 'out')
const stamp = join(outDir, '.build-stamp')
const forge = localForge()
const force = process.argv.includes('--force')
const check = process.argv.includes('--check')

/** The native forge binary of the installed @foundry-rs/forge (what node_modules/.bin/forge starts). */
function localForge(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch
  const exe = process.platform === 'win32' ? 'forge.exe' : 'forge'
  const candidates = [
    join(root, 'node_modules', '@foundry-rs', `forge-${process.platform}-${arch}`, 'bin', exe),
    join(root, 'node_modules', '@foundry-rs', 'forge', 'dist', exe),
  ]
  const found = candidates.find((path) => existsSync(path))
  if (!found) {
    console.error(
      `build-contracts: no forge binary for ${process.platform}-${process.arch} under node_modules/@foundry-rs: ` +
        'run `npm install` (forge comes from @foundry-rs/forge).',
    )
    process.exit(1)
  }
  return found
}

/** Newest modification time (ms) among the build's inputs: contracts/src, foundry.toml and the solc wrapper. */
function newestInput(): { path: string; mtime: number } {
  const src = join(contractsDir, 'src')
  const inputs = [
    join(contractsDir, 'foundry.toml'),
    join(root, 'bin', 'solc.mjs'),
    src,
    ...readdirSync(src, { recursive: true, encoding: 'utf8' }).map((file) => join(src, file)),
  ]
  let newest = { path: '', mtime: 0 }
  for (const path of inputs) {
    const mtime = statSync(path).mtimeMs
    if (mtime > newest.mtime) newest = { path, mtime }
  }
  return newest
}

function run(command: string[], cwd: string): void {
  const { exitCode } = Bun.spawnSync(command, { cwd, stdio: ['inherit', 'inherit', 'inherit'] })
  if (exitCode !== 0) {
    console.error(`build-contracts: \`${command.map((c) => relative(root, c) || c).join(' ')}\` failed (exit ${exitCode}).`)
    process.exit(exitCode ?? 1)
  }
}

const input = newestInput()
const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0
if (force || input.mtime > built) {
  const reason = force ? '--force' : built === 0 ? 'no previous build' : `${relative(root, input.path)} changed`
  console.log(`build-contracts: forge build (${reason})`)
  run([forge, 'build', '--deny', 'warnings', ...(force ? ['--force'] : [])], contractsDir)
  writeFileSync(stamp, `${new Date().toISOString()}\n`)
} else {
  console.log('build-contracts: contracts/out is up to date, skipping forge build (use --force to rebuild)')
}

run([process.execPath, join(root, 'scripts', 'generate-artifacts.ts'), ...(check ? ['--check'] : [])], root)
