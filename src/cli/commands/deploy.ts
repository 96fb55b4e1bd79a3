import { createPublicClient, createWalletClient, http, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { chainFor, deployContracts } from '../../chain/index.ts'
import { createEnvReader, redactUrl, redactUrls } from '../../shared/index.ts'
import { isAddressString } from '../../wire/index.ts'
import { type Command, CommandError, httpUrlFlag, parseFlags, UsageError } from '../command.ts'
import { assertManifestWritable, writeManifest } from '../lib/writeManifest.ts'

const addressFlag = (name: string, value: string | undefined) => {
  if (value === undefined) return undefined
  if (!isAddressString(value)) throw new UsageError(`--${name} must be an address (0x + 40 hex digits)`)
  return value as `0x${string}`
}

export const deployCommand: Command = {
  name: 'deploy',
  summary: 'deploy the Broker, adapters and registry set to any RPC and write a manifest',
  options: [
    '--rpc URL             RPC endpoint (or DEPLOY_RPC_URL; required)',
    '--manifest PATH       where to write the manifest (default deployments/<chainId>.json)',
    '--pay-token ADDR      existing EIP-3009 token, e.g. USDC (default: deploy a mock USD Coin)',
    '--auction ADDR        existing ExpressLaneAuction (default: deploy a mock)',
    '--owner ADDR          adapters\' owner (default: the deployer)',
    '--attestor ADDR       AttestedAdapter attestor (default: the deployer)',
    '--lane-operator ADDR  ExpressLaneAdapter lane operator (default: the deployer)',
  ],
  environment: ['DEPLOYER_PK      deployer key, 0x + 64 hex (required; never printed)', 'DEPLOY_RPC_URL   RPC endpoint when --rpc is not given'],
  async run(argv, io) {
    const { values } = parseFlags(argv, {
      rpc: { type: 'string' },
      manifest: { type: 'string' },
      'pay-token': { type: 'string' },
      auction: { type: 'string' },
      owner: { type: 'string' },
      attestor: { type: 'string' },
      'lane-operator': { type: 'string' },
    })
    const read = createEnvReader(io.env)
    const key = read.privateKey('DEPLOYER_PK', true)
    const rpcUrl = values.rpc === undefined ? read.url('DEPLOY_RPC_URL', undefined) : httpUrlFlag('rpc', values.rpc)
    if (!rpcUrl) read.problem('--rpc URL (or DEPLOY_RPC_URL) is required')
    try {
      read.done('deploy')
    } catch (error) {
      throw new UsageError((error as Error).message)
    }
    if (values.manifest !== undefined) assertManifestWritable(values.manifest)
    const account = privateKeyToAccount(key!)
    const probe = createPublicClient({ transport: http(rpcUrl, { retryCount: 1 }) })
    let chainId: number
    try {
      chainId = await probe.getChainId()
    } catch {
      throw new CommandError(`cannot reach ${redactUrl(rpcUrl!)}: check the URL and that the node is up`)
    }
    const path = values.manifest ?? `deployments/${chainId}.json`
    assertManifestWritable(path)
    const chain = chainFor(chainId, rpcUrl)
    const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 500 }) as PublicClient
    const walletClient = createWalletClient({ chain, transport: http(rpcUrl), account })
    io.out(`deploying to chain ${chainId} from ${account.address}`)
    const deployment = deployContracts({
      publicClient,
      walletClient,
      owner: addressFlag('owner', values.owner) ?? account.address,
      attestor: addressFlag('attestor', values.attestor) ?? account.address,
      laneOperator: addressFlag('lane-operator', values['lane-operator']) ?? account.address,
      payToken: addressFlag('pay-token', values['pay-token']),
      expressLaneAuction: addressFlag('auction', values.auction),
      onProgress: (p) => io.out(`[${p.step}/${p.total}] ${p.name}${p.address ? ` at ${p.address}` : ''} (tx ${p.txHash})`),
    })
    // A library's error may quote the RPC URL, credentials included.
    const { contracts, deployedAt } = await deployment.catch((error: unknown) => {
      throw new CommandError(redactUrls(error instanceof Error ? error.message : String(error)))
    })
    // The manifest is a file people commit and share: the RPC URL goes in without credentials.
    const shownUrl = redactUrl(rpcUrl!)
    writeManifest(path, { chainId, rpcUrl: shownUrl, deployedAt: deployedAt.toString(), contracts })
    io.out(`manifest written to ${path}`)
    if (shownUrl !== rpcUrl) io.out(`the manifest's rpcUrl is ${shownUrl} (credentials, query and key removed): give the relayer and indexer the full URL in RELAYER_RPC_URL / INDEXER_RPC_URL`)
    return 0
  },
}
