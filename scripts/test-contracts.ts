// Runs the forge tests in contracts/test (unit, fuzz and invariant suites) with the project's own
// forge and solc-js, under the `test` profile of contracts/foundry.toml. Extra arguments go to
// `forge test` (e.g. `--match-test testFuzz_feeSplit -vvv`). Exits with forge's exit code.
//
// Like scripts/build-contracts.ts, it starts the native binary @foundry-rs/forge installs, not the
// node_modules/.bin/forge shim, which exits 0 even when forge fails (docs/decisions.md).
import { existsSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dir, '..')
const arch = process.arch === 'x64' ? 'amd64' : process.arch
const exe = process.platform === 'win32' ? 'forge.exe' : 'forge'
const forge = [
  join(root, 'node_modules', '@foundry-rs', `forge-${process.platform}-${arch}`, 'bin', exe),
  join(root, 'node_modules', '@foundry-rs', 'forge', 'dist', exe),
].find((path) => existsSync(path))
if (!forge) {
  console.error(`test-contracts: no forge binary for ${process.platform}-${process.arch} under node_modules/@foundry-rs: run \`npm install\`.`)
  process.exit(1)
}

const { exitCode } = Bun.spawnSync([forge, 'test', ...process.argv.slice(2)], {
  cwd: join(root, 'contracts'),
  env: { ...process.env, FOUNDRY_PROFILE: 'test' },
  stdio: ['inherit', 'inherit', 'inherit'],
})
process.exit(exitCode ?? 1)
