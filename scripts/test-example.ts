// The contract developer's path, end to end (`npm run test:example`, a step of .ci/run):
// packs this package (npm pack into a throw-away folder: `prepare` builds dist/), copies
// examples/contract-e2e next to it, installs the tarball there with the example's own
// dev dependencies from npm (bun, anvil, forge, viem, vitest), builds the example's
// adapter with forge, checks `npx order-relay`, and runs its Bun test and its Vitest
// tests (Node). Nothing is left in the checkout; --keep keeps the folder for a look.
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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

cpSync(join(repo, 'examples/contract-e2e'), project, {
  recursive: true,
  filter: (source) => !/[\\/](node_modules|out|cache)$/.test(source),
})
// The example names the published package; here it is the tarball just packed.
const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'))
manifest.devDependencies['order-relay'] = `file:${join(work, tarball)}`
writeFileSync(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)

run('install the tarball and the example\'s dev dependencies', ['npm', 'install', '--prefer-offline'], project)
// No solc can be downloaded here: forge runs the project's solc-js wrapper (scripts/solc.mjs).
run('forge build', ['npx', 'forge', 'build'], project, { FOUNDRY_SOLC: join(repo, 'scripts/solc.mjs'), FOUNDRY_OFFLINE: 'true' })
if (!existsSync(join(project, 'out/TicketAdapter.sol/TicketAdapter.json'))) {
  console.error('example: forge build wrote no out/TicketAdapter.sol/TicketAdapter.json')
  finish(1)
}
// The first line is the version; the lines after it say what the build was made from.
const version = run('npx order-relay --version', ['npx', 'order-relay', '--version'], project).split('\n')[0]
if (version !== JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version) {
  console.error(`example: npx order-relay --version printed ${JSON.stringify(version)}`)
  finish(1)
}
run('bun test', ['npm', 'run', 'test:bun'], project)
console.log(`Node ${run('node --version', ['node', '--version'], project).trim()} runs Vitest`)
run('vitest', ['npm', 'run', 'test:vitest'], project)
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
