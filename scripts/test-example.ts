// The contract developer's path, end to end (`npm run test:example`, a step of .ci/run):
// packs this package (npm pack into a throw-away folder: `prepack` builds dist/), runs
// `order-relay init` from the tarball under Node (npx, no bun yet) into a new folder, which
// writes examples/contract-e2e there, installs the tarball with the project's own dev
// dependencies from npm (bun, anvil, forge, solc, viem, vitest), and runs the project's
// own `npm test` as a user would: forge build through the package's solc wrapper
// (bin/solc.mjs, named in its foundry.toml), its Bun test and its Vitest tests (Node).
// Nothing is left in the checkout; --keep keeps the folder for a look.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const repo = join(import.meta.dir, '..')
const keep = process.argv.includes('--keep')
const work = mkdtempSync(join(tmpdir(), 'order-relay-example-'))
const project = join(work, 'contract-e2e')
const started = performance.now()

/** Runs a command in `cwd` with its output shown; exits the script when it fails. */
function run(what: string, command: string[], cwd: string, env: Record<string, string> = {}): string {
  console.log(`\n--- ${what}: ${command.join(' ')}`)
  const result = spawnSync(command[0]!, command.slice(1), {
    cwd,
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  })
  process.stdout.write(result.stdout ?? '')
  if (result.status !== 0) {
    console.error(`example: ${what} failed (exit ${result.status ?? result.signal})${keep ? `; the project is in ${project}` : ''}`)
    finish(1)
  }
  return result.stdout ?? ''
}

function finish(code: number): never {
  if (!keep) rmSync(work, { recursive: true, force: true })
  console.log(`\nexample: ${code === 0 ? 'passed' : 'FAILED'} in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  process.exit(code)
}

run('pack the package', ['npm', 'pack', '--pack-destination', work], repo)
const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'))
if (!tarball) {
  console.error(`example: npm pack wrote no tarball into ${work}`)
  finish(1)
}

// A new folder has no bun: the bin runs `init` under Node.
const tarballPath = join(work, tarball)
const init = run('order-relay init from the tarball', ['npm', 'exec', '--yes', '--prefer-offline', `--package=${tarballPath}`, '--', 'order-relay', 'init', project], work)
if (!init.includes('  npm install\n  npm test')) {
  console.error(`example: order-relay init did not print the next steps:\n${init}`)
  finish(1)
}
// The project names the published package; here it is the tarball just packed.
const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'))
manifest.devDependencies['order-relay'] = `file:${tarballPath}`
writeFileSync(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)

run('install the tarball and the project\'s dev dependencies', ['npm', 'install', '--prefer-offline'], project)
// The first line is the version; the lines after it say what the build was made from.
const version = run('npx order-relay --version', ['npx', 'order-relay', '--version'], project).split('\n')[0]
if (version !== JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version) {
  console.error(`example: npx order-relay --version printed ${JSON.stringify(version)}`)
  finish(1)
}
console.log(`Node ${run('node --version', ['node', '--version'], project).trim()} runs Vitest`)
// The project's own test script: forge build (no FOUNDRY_SOLC: its foundry.toml names the wrapper), bun test, Vitest.
run('npm test', ['npm', 'test'], project)
if (!existsSync(join(project, 'out/TicketAdapter.sol/TicketAdapter.json'))) {
  console.error('example: forge build wrote no out/TicketAdapter.sol/TicketAdapter.json')
  finish(1)
}
// Every devnet the tests started was stopped: nothing runs from the example's folder any more.
const left = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
  .stdout.split('\n')
  .filter((line) => line.includes(work) && !line.includes('ps -eo'))
if (left.length > 0) {
  console.error(`example: processes left running after the tests:\n${left.join('\n')}`)
  for (const line of left) process.kill(Number(line.trim().split(/\s+/)[0]), 'SIGTERM')
  finish(1)
}
finish(0)
