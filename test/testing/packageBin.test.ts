// The package as a contract developer installs it : `npm pack` leaves
// nothing in the checkout; the tarball installed alone (as a dApp that imports only
// order-relay/client does) brings no bun and no anvil, and its `order-relay` bin and
// order-relay/testing say how to get them; with bun and anvil installed from npm beside
// it, `npx order-relay` runs the CLI under Node. `npm install <path to the checkout>`
// works too (dist/ is built on `prepare`); the tarball's package.json has no lifecycle script.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const repo = join(import.meta.dir, '../..')
const version: string = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version
/** A PATH with node and npm but no bun and no anvil. */
const plainPath = '/usr/bin:/bin'
let work: string
let project: string

type Ran = { code: number; out: string; err: string }
async function run(cmd: string[], cwd: string, env: Record<string, string> = {}): Promise<Ran> {
  const child = Bun.spawn(cmd, { cwd, stdout: 'pipe', stderr: 'pipe', env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...env } })
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { code, out, err }
}
async function ok(cmd: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const ran = await run(cmd, cwd, env)
  if (ran.code !== 0) throw new Error(`${cmd.join(' ')} exited ${ran.code}:\n${`${ran.out}${ran.err}`.slice(-3000)}`)
  return ran.out
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'order-relay-package-bin-'))
  project = join(work, 'project')
  await mkdir(project)
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'contract-project', private: true, type: 'module' }))
}, 30_000)

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true })
}, 60_000)

test('npm pack in the checkout writes its tarball under dist/ (git-ignored), made when missing: the checkout is as it was', async () => {
  // dist/ is build output (git-ignored), rebuilt by the pack itself: start without it, as a fresh clone does.
  await rm(join(repo, 'dist'), { recursive: true, force: true })
  const before = await ok(['git', 'status', '--porcelain', '--untracked-files=all'], repo)
  const packed = (await ok(['npm', 'pack'], repo)).trim().split('\n').at(-1)!
  expect(packed).toBe(`order-relay-${version}.tgz`)
  expect(await ok(['git', 'status', '--porcelain', '--untracked-files=all'], repo)).toBe(before)
  expect(existsSync(join(repo, packed))).toBe(false)
  await rename(join(repo, 'dist', packed), join(work, packed))
  expect((await readdir(work)).sort()).toEqual([packed, 'project'])
  // The packed package.json carries no lifecycle script: their files (scripts/, the sources) are not in the package.
  const manifest = JSON.parse(await ok(['tar', 'xzf', join(work, packed), '-O', 'package/package.json'], work))
  expect(Object.keys(manifest.scripts).filter((name) => /^(pre|post)?(install|prepare|pack|publish)$|^prepack$|^postpack$/.test(name))).toEqual([])
  // The checkout keeps `prepare`: `npm install` there and `npm install <path to the checkout>` build dist/.
  expect(JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).scripts.prepare).toBe('bun scripts/build-lib.ts && bun scripts/build-cli.ts')
}, 120_000)

test('installed alone, it brings no bun and no anvil: the bin and order-relay/testing name the command that does', async () => {
  await ok(['npm', 'install', '--prefer-offline', join(work, `order-relay-${version}.tgz`)], project)
  const installed = JSON.parse(readFileSync(join(project, 'node_modules/order-relay/package.json'), 'utf8'))
  expect(installed.bin).toEqual({ 'order-relay': './bin/order-relay.js' })
  expect(Object.keys(installed.dependencies).sort()).toEqual(['hash-wasm', 'valibot', 'viem'])
  expect(installed.peerDependenciesMeta).toEqual({ '@foundry-rs/anvil': { optional: true }, bun: { optional: true } })
  expect(existsSync(join(project, 'node_modules/bun'))).toBe(false)
  expect(existsSync(join(project, 'node_modules/@foundry-rs'))).toBe(false)

  const bin = await run(['node', 'node_modules/.bin/order-relay', '--version'], project, { PATH: plainPath })
  expect(bin.code).toBe(1)
  expect(bin.err).toContain('order-relay: bun not found')
  expect(bin.err).toContain('npm install --save-dev bun @foundry-rs/anvil')

  // `init` runs under Node: a folder to scaffold has no bun yet.
  const init = await run(['node', 'node_modules/.bin/order-relay', 'init', join(work, 'scaffold')], project, { PATH: plainPath })
  expect([init.code, init.err, init.out.split('\n')[0]]).toEqual([0, '', `order-relay init: wrote scaffold into ../scaffold (src/TicketAdapter.sol, test/, foundry.toml, package.json)`])
  expect(JSON.parse(readFileSync(join(work, 'scaffold/package.json'), 'utf8')).devDependencies['order-relay']).toBe(`^${version}`)
  expect(existsSync(join(work, 'scaffold/src/TicketAdapter.sol'))).toBe(true)

  const harness = await run(['node', '--input-type=module', '-e', "import('order-relay/testing').then((t) => t.startDevnet()).catch((e) => { console.log(e.name); console.log(e.message) })"], project, { PATH: plainPath })
  expect(harness.out.split('\n')[0]).toBe('BunNotFoundError')
  expect(harness.out).toContain('npm install --save-dev bun @foundry-rs/anvil')
}, 120_000)

test('with bun but no anvil, the devnet says to install anvil into the project', async () => {
  await ok(['npm', 'install', '--prefer-offline', '--save-dev', 'bun'], project)
  const devnet = await run(['npx', 'order-relay', 'devnet', '--port-base', '0', '--manifest', join(work, 'manifest.json')], project, { PATH: plainPath, HOME: work })
  expect(devnet.code).toBe(1)
  expect(devnet.err).toContain("order-relay devnet: anvil not found: the devnet runs anvil, Foundry's local chain.")
  expect(devnet.err).toContain('  npm install --save-dev @foundry-rs/anvil   (from the npm registry, into your project beside order-relay)')
}, 120_000)

test('with bun and anvil from npm beside it, `npx order-relay` runs the CLI under Node: every command, the devnet\'s --adapter and RELAYER_* variables', async () => {
  await ok(['npm', 'install', '--prefer-offline', '--save-dev', '@foundry-rs/anvil'], project)
  expect((await ok(['npx', 'order-relay', '--version'], project, { PATH: plainPath })).split('\n')[0]).toBe(version)
  const usage = await run(['npx', 'order-relay'], project, { PATH: plainPath })
  expect(usage.code).toBe(2)
  for (const name of ['devnet', 'relayer', 'indexer', 'serve', 'order', 'deploy', 'mcp', 'verify-receipt']) expect(usage.out).toContain(`  ${name} `)
  const help = await ok(['npx', 'order-relay', 'devnet', '--help'], project, { PATH: plainPath })
  expect(help).toContain('--adapter PATH.json[:ARGS]')
  expect(help).toContain('RELAYER_FEE_FLOOR_BPS')
  // A usage error passes its exit code through the launcher.
  const bad = await run(['npx', 'order-relay', 'devnet', '--adapter', 'nowhere.json'], project, { PATH: plainPath })
  expect([bad.code, bad.err.split('\n')[0]]).toEqual([2, `order-relay devnet: cannot read the artifact nowhere.json: no such file (build the contract first, e.g. forge build)`])
}, 180_000)

test('order-relay/testing under Node from the installed package: a devnet on the bundled CLI settles an order, its relayer signing in its thread', async () => {
  const script = [
    "import { encodeAbiParameters } from 'viem'",
    "import { sendOrder, startDevnet } from 'order-relay/testing'",
    'const devnet = await startDevnet()',
    'let success',
    'try {',
    "  success = await sendOrder(devnet, { adapter: 'allocationAdapter', params: encodeAbiParameters([{ type: 'uint256' }], [1n]), amount: 10_000_000n })",
    '} finally {',
    '  await devnet.stop()',
    '}',
    // Everything the devnet printed, up to its exit.
    'console.log(JSON.stringify({ event: success.receipt.event, fee: success.feeCollected, output: devnet.output() }))',
  ].join('\n')
  await writeFile(join(project, 'order.mjs'), script)
  const result = JSON.parse((await ok(['node', 'order.mjs'], project, { PATH: plainPath })).trim().split('\n').at(-1)!)
  expect([result.event, result.fee]).toEqual(['AllocationGranted', '50000'])
  expect(result.output).toContain('POST /broker 200 OK')
  // The bundle starts its signer thread from dist/cli/signerThread.js: no fallback to the main thread.
  expect(result.output).not.toContain('signer thread')
}, 180_000)

test('npm install <path to the checkout>: order-relay/client and order-relay/testing import under Node', async () => {
  const linked = join(work, 'linked')
  await mkdir(linked)
  await writeFile(join(linked, 'package.json'), JSON.stringify({ name: 'linked-project', private: true, type: 'module' }))
  await ok(['npm', 'install', '--prefer-offline', repo], linked)
  const out = await ok(
    ['node', '--input-type=module', '-e', "const c = await import('order-relay/client'); const t = await import('order-relay/testing'); console.log(typeof c.createRelayClient, typeof t.startDevnet, typeof t.sendOrder)"],
    linked,
  )
  expect(out.trim()).toBe('function function function')
}, 120_000)
