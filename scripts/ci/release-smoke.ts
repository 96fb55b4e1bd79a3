// The linux-x64 release executable, end to end, as a user runs it: copied alone into an
// empty folder (no node_modules beside it or above it), it starts a devnet (anvil from
// npm, found on PATH: this script puts the npm package's anvil binary folder first on the
// child's PATH), settles one order with its own `order` subcommand, and the order's
// transaction is read back from the chain: mined, status success, sent by the relayer.
// Used by .ci/run and .github/workflows/release.yml.
//
//   bun scripts/ci/release-smoke.ts [EXECUTABLE]   (default dist/release/order-relay-<version>-linux-x64)
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import packageJson from '../../package.json' with { type: 'json' }
import { type Child, spawnChild } from '../bench/lib/processes.ts'

const root = resolve(import.meta.dir, '../..')

export type ExecutableDevnet = {
  /** The folder holding the copied executable and nothing else it needs. */
  dir: string
  exe: string
  manifestPath: string
  manifest: { chainId: number; rpcUrl: string; relayerUrl: string; contracts: { broker: string } }
  child: Child
}

/** Waits until the child printed something matching `pattern`; the error says what and shows the output. */
export async function waitForOutput(child: Child, pattern: RegExp, what: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs
  let exited = false
  void child.exited.then(() => (exited = true))
  while (!pattern.test(child.output)) {
    if (exited) throw new Error(`${what}: the process exited first; its output:\n${child.output}`)
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s; output so far:\n${child.output}`)
    await Bun.sleep(50)
  }
}

/** The folder of the anvil binary that `@foundry-rs/anvil` installed for this platform. */
export function npmAnvilFolder(): string {
  const scope = join(root, 'node_modules/@foundry-rs')
  const entry = readdirSync(scope).find((name) => name.startsWith('anvil-'))
  if (!entry) throw new Error(`no @foundry-rs/anvil-<platform> package in ${scope}: run npm ci first`)
  return join(scope, entry, 'bin')
}

/**
 * Copies `exe` into an empty folder, runs its `devnet` there and hands it to `use`;
 * stops it (SIGTERM, exit 0 expected) and removes the folder afterwards.
 *
 * @example
 * await withExecutableDevnet('dist/release/order-relay-0.1.0-linux-x64', async (devnet) => console.log(devnet.manifest.rpcUrl))
 */
export async function withExecutableDevnet(exe: string, use: (devnet: ExecutableDevnet) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'order-relay-release-'))
  const home = mkdtempSync(join(tmpdir(), 'order-relay-release-home-'))
  const copied = join(dir, 'order-relay')
  copyFileSync(exe, copied)
  chmodSync(copied, 0o755)
  const manifestPath = join(dir, 'manifest.json')
  // --port-base 0: anvil, relayer and indexer each on a free port, named in the manifest.
  const child = spawnChild([copied, 'devnet', '--port-base', '0', '--manifest', manifestPath], { PATH: `${npmAnvilFolder()}:/usr/bin:/bin`, HOME: home }, { cwd: dir })
  try {
    await waitForOutput(child, /Ctrl-C stops everything/, 'order-relay devnet ready', 90_000)
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as ExecutableDevnet['manifest']
    await use({ dir, exe: copied, manifestPath, manifest, child })
    const code = await child.stop(10_000)
    if (code !== 0) throw new Error(`order-relay devnet exited ${code} on SIGTERM; output:\n${child.output}`)
  } finally {
    await child.stop(2_000)
    rmSync(dir, { recursive: true, force: true })
    rmSync(home, { recursive: true, force: true })
  }
}

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const body = (await response.json()) as { result?: T; error?: { message: string } }
  if (body.error || body.result === undefined) throw new Error(`${method}: ${body.error?.message ?? 'no result'}`)
  return body.result
}

/**
 * Settles one order through the executable's `order` subcommand and checks on chain that
 * its transaction succeeded; resolves with the transaction hash.
 *
 * @example
 * const hash = await settleOneOrder(devnet)
 */
export async function settleOneOrder(devnet: ExecutableDevnet): Promise<string> {
  const result = Bun.spawnSync([devnet.exe, 'order', '--manifest', devnet.manifestPath], { cwd: devnet.dir, stdout: 'pipe', stderr: 'pipe', env: { PATH: '/usr/bin:/bin' } })
  const out = result.stdout.toString()
  if (result.exitCode !== 0) throw new Error(`order-relay order exited ${result.exitCode}:\n${out}${result.stderr.toString()}`)
  const success = JSON.parse(out) as { ok: boolean; txHash?: string; receipt?: { event?: string } }
  if (success.ok !== true || success.receipt?.event !== 'AllocationGranted' || !success.txHash) throw new Error(`order-relay order did not settle the order:\n${out}`)
  const receipt = await rpc<{ status: string; from: string; to: string } | null>(devnet.manifest.rpcUrl, 'eth_getTransactionReceipt', [success.txHash])
  if (receipt?.status !== '0x1') throw new Error(`the order's transaction ${success.txHash} is not a successful receipt on chain: ${JSON.stringify(receipt)}`)
  if (receipt.to.toLowerCase() !== devnet.manifest.contracts.broker.toLowerCase()) throw new Error(`the order's transaction went to ${receipt.to}, not the Broker ${devnet.manifest.contracts.broker}`)
  return success.txHash
}

if (import.meta.main) {
  const exe = resolve(Bun.argv[2] ?? join(root, 'dist/release', `order-relay-${packageJson.version}-linux-x64`))
  const started = performance.now()
  try {
    await withExecutableDevnet(exe, async (devnet) => {
      const version = Bun.spawnSync([devnet.exe, '--version'], { stdout: 'pipe' }).stdout.toString()
      console.log(`release smoke: ${exe}\n${version.trimEnd()}`)
      console.log(`release smoke: devnet ready in ${dirname(devnet.exe)} (chain ${devnet.manifest.chainId}, RPC ${devnet.manifest.rpcUrl})`)
      const hash = await settleOneOrder(devnet)
      console.log(`release smoke: order settled, transaction ${hash} succeeded on chain`)
    })
    console.log(`release smoke: passed in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  } catch (error) {
    console.error(`release smoke: FAILED: ${(error as Error).message}`)
    process.exit(1)
  }
}
