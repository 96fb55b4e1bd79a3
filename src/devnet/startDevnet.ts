import {
  type Account,
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  http,
  type PublicClient,
  type TestClient,
  type Transport,
  type WalletClient,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { chainFor, deployContracts, type DeployProgress, type Manifest, type ManifestAdapter } from '../chain/index.ts'
import { freePort } from '../shared/index.ts'
import { type DevnetRole, devnetAccounts } from './accounts.ts'
import { anvilInstance } from './anvilInstance.ts'
import { type AdapterDeployment, adapterAddressNames, deployAdapter } from './deployAdapter.ts'
import { becomeFiatTokenMinter } from './fiatTokenMinter.ts'
import { findAnvil } from './findAnvil.ts'
import { devnetPrice, devnetTokenPrice, seedDevnet } from './seed.ts'

export type StartDevnetOptions = {
  /** 421614 (default) or 46630, or any id. */
  chainId?: number
  /** anvil's port; a free one when absent. */
  port?: number
  /** Run anvil as a fork of this RPC and deploy onto it. */
  forkUrl?: string
  /** With `forkUrl`: fork at this block (anvil's `--fork-block-number`), so a run meets the same chain state every time. */
  forkBlockNumber?: bigint
  /**
   * An existing Circle FiatToken (USDC) on the chain, typically a fork's: the pay token
   * instead of a deployed mock. The consumer, lender and borrower are funded through it
   * (the token's master minter, impersonated, makes the deployer a minter).
   */
  payToken?: Address
  /** Adapters of your own, deployed after the project's against its Broker; in the manifest's `adapters`. */
  adapters?: AdapterDeployment[]
  /** Deploy and seed (default true); false gives a bare chain. */
  deploy?: boolean
  /** Vaults to configure on the allocation adapter; `price` (default 10 USDC) and `payee` (default the devnet payee) are what a slot costs. */
  vaults?: { vaultId: bigint; slots: number; price?: bigint; payee?: Address }[]
  onProgress?: (progress: DeployProgress) => void
  /** The anvil executable; `findAnvil()` when absent. */
  anvilBinary?: string
  /** Each line anvil writes to stderr once running (default: printed to stderr as `anvil: …`). */
  onAnvilStderr?: (line: string) => void
  /**
   * Keep the state of only this many recent blocks (anvil's `--prune-history N`), in
   * memory. Without it anvil keeps every block's state and, past its in-memory window,
   * writes one to disk per new block: each block then costs more as the state grows.
   */
  pruneHistory?: number
}

/** How anvil ended when nobody asked it to stop. */
export type AnvilExit = { code: number | null; signal: string | null; stderr: string[] }

export type Devnet = Awaited<ReturnType<typeof startDevnet>>

async function remoteChainId(url: string): Promise<number> {
  try {
    return await createPublicClient({ transport: http(url, { retryCount: 1 }) }).getChainId()
  } catch {
    throw new Error(`cannot read the chain id of the fork URL ${new URL(url).origin}: is it up?`)
  }
}

/**
 * Starts anvil through prool (our own instance definition, see anvilInstance.ts),
 * deploys everything and seeds it: the harness behind every test and
 * `order-relay devnet`. Always `stop()` it.
 *
 * @example
 * const devnet = await startDevnet({ chainId: 421614 })
 * devnet.manifest.contracts.broker // 0x…
 * await devnet.stop()
 */
export async function startDevnet(options: StartDevnetOptions = {}) {
  // A fork keeps the forked chain's id unless told otherwise.
  const chainId = options.chainId ?? (options.forkUrl ? await remoteChainId(options.forkUrl) : 421614)
  const port = options.port ?? (await freePort())
  const instance = anvilInstance({
    binary: options.anvilBinary ?? findAnvil(),
    chainId,
    port,
    host: '127.0.0.1',
    ...(options.forkUrl ? { forkUrl: options.forkUrl } : {}),
    ...(options.forkUrl && options.forkBlockNumber !== undefined ? { forkBlockNumber: options.forkBlockNumber } : {}),
    ...(options.pruneHistory !== undefined ? { pruneHistory: options.pruneHistory } : {}),
  })
  // anvil's error output stays visible (and is kept for the exit report); an exit we
  // did not ask for settles `unexpectedExit` so a caller can say the chain is gone.
  const recentStderr: string[] = []
  const onStderr = options.onAnvilStderr ?? ((line: string) => process.stderr.write(`anvil: ${line}\n`))
  let stopping = false
  let reportExit: (exit: AnvilExit) => void = () => {}
  const unexpectedExit = new Promise<AnvilExit>((resolve) => (reportExit = resolve))
  instance.on('stderr', (line) => {
    recentStderr.push(line)
    if (recentStderr.length > 20) recentStderr.shift()
    onStderr(line)
  })
  instance.on('exit', (code, signal) => {
    if (!stopping) reportExit({ code, signal, stderr: [...recentStderr] })
  })
  await instance.start()
  const rpcUrl = `http://127.0.0.1:${port}`
  try {
    const chain = chainFor(chainId, rpcUrl)
    const transport = http(rpcUrl, { retryCount: 0 })
    const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 }) as PublicClient
    const testClient = createTestClient({ chain, transport, mode: 'anvil', pollingInterval: 50 }) as TestClient<'anvil'>
    const wallet = (role: DevnetRole): WalletClient<Transport, Chain, Account> =>
      createWalletClient({ chain, transport, account: privateKeyToAccount(devnetAccounts[role].privateKey), pollingInterval: 50 })

    const vaults = (options.vaults ?? [{ vaultId: 1n, slots: 1000 }]).map((vault) => ({
      vaultId: vault.vaultId,
      slots: vault.slots,
      price: vault.price ?? devnetPrice,
      payee: vault.payee ?? devnetAccounts.payee.address,
    }))
    let manifest: Manifest | undefined
    if (options.deploy !== false) {
      // A fork starts with real balances; make sure our dev accounts can pay for gas. On public
      // testnets anvil's well-known accounts often carry an EIP-7702 delegation (to a sweeper):
      // their code is cleared, so they sign and pay as plain accounts, as on a devnet.
      if (options.forkUrl) {
        for (const account of Object.values(devnetAccounts)) {
          await testClient.setBalance({ address: account.address, value: 10n ** 22n })
          await testClient.setCode({ address: account.address, bytecode: '0x' })
        }
      }
      const { contracts, deployedAt } = await deployContracts({
        publicClient,
        walletClient: wallet('deployer'),
        payToken: options.payToken,
        owner: devnetAccounts.deployer.address,
        attestor: devnetAccounts.attestor.address,
        laneOperator: devnetAccounts.laneOperator.address,
        onProgress: options.onProgress,
      })
      if (options.payToken) {
        // Seeding mints the pay token (`mint(to, amount)`, FiatToken's own): the deployer becomes one of its minters.
        await becomeFiatTokenMinter({ publicClient, testClient, chain, transport, token: options.payToken, minter: devnetAccounts.deployer.address, allowance: 10n ** 30n })
      }
      await seedDevnet({ publicClient, wallet, contracts, vaults })
      const names = adapterAddressNames(contracts)
      const adapters: ManifestAdapter[] = []
      for (const adapter of options.adapters ?? []) {
        const deployed = await deployAdapter({ publicClient, walletClient: wallet('deployer'), adapter, names })
        if (adapters.some((other) => other.name === deployed.name)) throw new Error(`two adapters named ${deployed.name}: give one a name of its own`)
        adapters.push(deployed)
      }
      manifest = {
        chainId,
        rpcUrl,
        // anvil answers WebSocket on its HTTP port.
        wsUrl: rpcUrl.replace(/^http/, 'ws'),
        deployedAt: deployedAt.toString(),
        contracts,
        tokens: { [contracts.payToken]: devnetTokenPrice },
        accounts: {
          relayer: devnetAccounts.relayer.address,
          consumer: devnetAccounts.consumer,
          attestor: devnetAccounts.attestor,
          laneOperator: devnetAccounts.laneOperator,
        },
        vaults: vaults.map((vault) => ({ vaultId: vault.vaultId.toString(), slots: vault.slots, price: vault.price.toString(), payee: vault.payee })),
        ...(adapters.length > 0 ? { adapters } : {}),
      }
    }

    return {
      chainId,
      rpcUrl,
      port,
      /** The deployment (undefined when started with `deploy: false`). */
      manifest: manifest as Manifest,
      accounts: devnetAccounts,
      publicClient,
      testClient,
      wallet,
      /** anvil's process id. */
      anvilPid: (instance._internal.process?.pid ?? 0) as number,
      /** Settles if anvil exits without `stop()` (crashed or killed); never settles otherwise. */
      unexpectedExit,
      /** Stops anvil; safe to call twice. */
      async stop() {
        stopping = true
        await instance.stop().catch(() => {})
      },
    }
  } catch (error) {
    stopping = true
    await instance.stop().catch(() => {})
    throw error
  }
}
