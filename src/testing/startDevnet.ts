import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Abi, type Account, type Address, type Chain, createPublicClient, createWalletClient, defineChain, type Hex, http, type PublicClient, type Transport, type WalletClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type Manifest, readManifest } from '../chain/manifest.ts'
import { createRelayClient, type RelayClient } from '../client/index.ts'
import { type DevnetAccount, type DevnetRole, devnetAccounts } from '../devnet/accounts.ts'
import { cliEntry, findBun } from '../launcher/index.ts'

/** An adapter of your own to deploy against the devnet's Broker. */
export type TestAdapter = {
  /** A forge artifact file (`out/X.sol/X.json`) or hardhat's, or the artifact itself: `{ abi, bytecode }`. */
  artifact: string | { abi: Abi | readonly unknown[]; bytecode: Hex | { object: Hex } }
  /**
   * Constructor arguments, in order. An `address` may be a name the devnet knows:
   * `broker`, `payToken`, any other manifest contract, or an account (`deployer`,
   * `consumer`, `payee`…). Integers may be bigints, numbers or decimal strings.
   */
  args?: readonly unknown[]
  /** The name to find it by (`devnet.adapters[name]`, `receipt.adapter`); default the contract's. */
  name?: string
}

export type StartDevnetOptions = {
  /** 421614 (default) or 46630, or any id. */
  chainId?: number
  /** Your adapters, deployed after the project's contracts; their errors and events are decoded by the relayer. */
  adapters?: readonly TestAdapter[]
  /** Variables for the devnet's relayer (`RELAYER_FEE_FLOOR_BPS`, `RELAYER_REVERT_COOLDOWN_MS`, …), over this process's environment. */
  env?: Record<string, string>
  /** Run anvil as a fork of this RPC URL and deploy onto it. */
  forkUrl?: string
  /** With `forkUrl`: the block to fork at. */
  forkBlockNumber?: bigint
  /** With `forkUrl`: a Circle FiatToken (the chain's USDC) to pay in instead of a mock; the consumer is funded through its master minter. */
  payToken?: Address
  /** Milliseconds to wait for the devnet to be ready (default 120000). */
  timeout?: number
  /** Each line the devnet prints (by default kept, and shown when it fails to start). */
  onOutput?: (line: string) => void
}

export type TestDevnet = {
  chainId: number
  /** anvil's JSON-RPC URL. */
  rpcUrl: string
  /** The devnet's relayer (`POST /broker`, `GET /broker/{orderHash}`, `GET /info`). */
  relayerUrl: string
  /** The devnet's indexer (`GET /activity`). */
  indexerUrl: string
  /** Where everything is: contracts, accounts, vaults, your adapters (`adapters`). */
  manifest: Manifest
  /** The manifest's file, for `order-relay relayer --manifest` and the like. */
  manifestPath: string
  /** Your adapters' addresses by name. */
  adapters: Record<string, Address>
  /** anvil's public development accounts by role: `consumer` signs and pays, `payee` is paid, `deployer` deployed everything. */
  accounts: Record<DevnetRole, DevnetAccount>
  /** A client of the devnet's relayer (`broker`, `brokerAsync`, `status`, `waitForOrder`, `info`). */
  relayer: RelayClient
  /** A viem public client of the chain. */
  publicClient: PublicClient
  /** A viem wallet client signing as one of `accounts` (to configure your adapter, say). */
  walletClient(role: DevnetRole): WalletClient<Transport, Chain, Account>
  /** Everything the devnet printed so far. */
  output(): string
  /** Stops the relayer, the indexer and anvil; safe to call twice. */
  stop(): Promise<void>
}

/**
 * Devnets of this process still running: sent SIGTERM if it exits without stopping
 * them, so each stops its relayer, indexer and anvil itself (a SIGKILL would leave its anvil).
 */
const running = new Set<ChildProcess>()
let cleanupInstalled = false
function killOnExit(child: ChildProcess) {
  running.add(child)
  child.once('exit', () => running.delete(child))
  if (cleanupInstalled) return
  cleanupInstalled = true
  process.once('exit', () => {
    for (const each of running) each.kill('SIGTERM')
  })
}

/** JSON for the command line: bigints as decimal strings (the devnet reads integers from them). */
const argsJson = (args: readonly unknown[]) => JSON.stringify(args, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))

/**
 * Starts `order-relay devnet` as a process (anvil through prool, every contract
 * deployed and seeded, your adapters deployed against its Broker, the real relayer and
 * indexer, each on a free port), waits until it is ready and reads its manifest. It
 * runs on Bun (the relayer needs bun:sqlite and Bun.serve), so it works the same from
 * `bun test` and from Vitest under Node. Always `stop()` it.
 *
 * @throws Error with the devnet's output when it exits or is not ready in time; BunNotFoundError naming the install command
 * @example
 * import { startDevnet } from 'order-relay/testing'
 *
 * const devnet = await startDevnet({
 *   adapters: [{ artifact: 'out/TicketAdapter.sol/TicketAdapter.json', args: ['broker', 'payToken', 'payee', 10_000_000n, 2n] }],
 *   env: { RELAYER_FEE_FLOOR_BPS: '10' },
 * })
 * devnet.adapters.TicketAdapter // '0x…'
 * await devnet.stop()
 */
export async function startDevnet(options: StartDevnetOptions = {}): Promise<TestDevnet> {
  const bun = findBun()
  const dir = mkdtempSync(join(tmpdir(), 'order-relay-devnet-'))
  const manifestPath = join(dir, 'manifest.json')
  const args = [cliEntry(), 'devnet', '--port-base', '0', '--manifest', manifestPath]
  if (options.chainId !== undefined) args.push('--chain-id', String(options.chainId))
  if (options.forkUrl) args.push('--fork-url', options.forkUrl)
  if (options.forkBlockNumber !== undefined) args.push('--fork-block', options.forkBlockNumber.toString())
  if (options.payToken) args.push('--pay-token', options.payToken)
  for (const [i, adapter] of (options.adapters ?? []).entries()) {
    let path = typeof adapter.artifact === 'string' ? adapter.artifact : join(dir, `adapter-${i + 1}.json`)
    if (typeof adapter.artifact !== 'string') {
      writeFileSync(path, JSON.stringify({ ...adapter.artifact, contractName: adapter.name ?? `Adapter${i + 1}` }))
    } else if (adapter.name) {
      // The devnet names an adapter by the artifact's contractName, else its file: a copy under the name asked for.
      path = join(dir, `adapter-${i + 1}.json`)
      writeFileSync(path, JSON.stringify({ ...(JSON.parse(readFileSync(adapter.artifact, 'utf8')) as object), contractName: adapter.name }))
    }
    args.push('--adapter', `${path}:${argsJson(adapter.args ?? [])}`)
  }

  const child = spawn(bun, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } })
  killOnExit(child)
  const lines: string[] = []
  const onLine = (line: string) => {
    lines.push(line)
    options.onOutput?.(line)
  }
  let ready: () => void = () => {}
  const isReady = new Promise<void>((resolve) => (ready = resolve))
  for (const stream of [child.stdout, child.stderr]) {
    let rest = ''
    stream?.setEncoding('utf8')
    stream?.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n')
      rest = parts.pop() ?? ''
      for (const line of parts) {
        onLine(line)
        if (line.startsWith('devnet ready:')) ready()
      }
    })
    stream?.on('end', () => rest && onLine(rest))
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const timeoutMs = options.timeout ?? 120_000
  let timer: ReturnType<typeof setTimeout> | undefined
  const outcome = await Promise.race([
    isReady.then(() => 'ready' as const),
    exited.then((code) => ({ code })),
    new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs))),
  ])
  clearTimeout(timer)
  const stopChild = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(killer)
    }
    rmSync(dir, { recursive: true, force: true })
  }
  if (outcome !== 'ready') {
    await stopChild()
    const why = outcome === 'timeout' ? `was not ready within ${timeoutMs} ms` : `exited with code ${outcome.code}`
    throw new Error(`order-relay devnet ${why}:\n${lines.slice(-30).join('\n')}`)
  }

  const manifest = readManifest(manifestPath)
  // The devnet's chain as viem needs it to sign and send: its id and its node.
  const chain = defineChain({ id: manifest.chainId, name: `devnet ${manifest.chainId}`, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [manifest.rpcUrl] } } })
  const transport = http(manifest.rpcUrl)
  let stopped: Promise<void> | undefined
  return {
    chainId: manifest.chainId,
    rpcUrl: manifest.rpcUrl,
    relayerUrl: manifest.relayerUrl!,
    indexerUrl: manifest.indexerUrl!,
    manifest,
    manifestPath,
    adapters: Object.fromEntries((manifest.adapters ?? []).map((adapter) => [adapter.name, adapter.address])),
    accounts: devnetAccounts,
    relayer: createRelayClient({ url: manifest.relayerUrl! }),
    publicClient: createPublicClient({ chain, transport, pollingInterval: 50 }) as PublicClient,
    walletClient: (role) => createWalletClient({ chain, transport, account: privateKeyToAccount(devnetAccounts[role].privateKey), pollingInterval: 50 }),
    output: () => lines.join('\n'),
    stop: () => (stopped ??= stopChild()),
  }
}
