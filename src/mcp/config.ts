import { type Address, getAddress } from 'viem'
import { defaultRpcUrl, type Manifest, ManifestError, readManifest } from '../chain/index.ts'
import { createEnvReader, type Env } from '../shared/index.ts'
import { isAddressString } from '../wire/index.ts'

/** Where `is_encumbered` reads: the indexer's chain, RPC and registry. */
export type McpConfig = {
  chainId: number
  rpcUrl: string
  registry: Address
}

export type McpConfigOverrides = {
  /** `--manifest PATH`: wins over INDEXER_MANIFEST. */
  manifestPath?: string | undefined
}

/** The variables `order-relay mcp` reads (the indexer's), for `--help`. */
export const mcpEnvironment = [
  'INDEXER_CHAIN_ID     chain to read: 421614, 46630 or a devnet id (default: the manifest\'s)',
  'INDEXER_RPC_URL      RPC endpoint (default: the manifest\'s, else the chain\'s public RPC)',
  'INDEXER_MANIFEST     devnet/deploy manifest to read chain, RPC and registry from',
  'INDEXER_ADDRESSES    registry,inbox,pool,escrow (comma list; the first is the LienRegistry) when no manifest',
]

/**
 * Reads the MCP server's configuration from the indexer's variables
 * (INDEXER_CHAIN_ID, INDEXER_RPC_URL, INDEXER_MANIFEST or INDEXER_ADDRESSES);
 * a `--manifest` flag wins over INDEXER_MANIFEST, and a manifest's registry over
 * INDEXER_ADDRESSES. Throws a ConfigError naming every bad variable.
 *
 * @example
 * const config = readMcpConfig(process.env, { manifestPath: '.devnet/manifest.json' })
 * config.registry // 0x…
 */
export function readMcpConfig(env: Env, overrides: McpConfigOverrides = {}): McpConfig {
  const read = createEnvReader(env)

  let manifest: Manifest | undefined
  const manifestPath = overrides.manifestPath ?? read.string('INDEXER_MANIFEST')
  const manifestSource = overrides.manifestPath !== undefined ? '--manifest' : 'INDEXER_MANIFEST'
  if (manifestPath) {
    try {
      manifest = readManifest(manifestPath)
    } catch (error) {
      read.problem(error instanceof ManifestError ? `${manifestSource}: ${error.message}` : String(error))
    }
  }

  const chainId = read.integer('INDEXER_CHAIN_ID', manifest?.chainId, 1, Number.MAX_SAFE_INTEGER)
  if (chainId === undefined && !manifestPath) read.problem('INDEXER_CHAIN_ID is required (421614 or 46630, or a devnet chain id), or give a manifest')
  if (manifest && chainId !== undefined && manifest.chainId !== chainId) {
    read.problem(`INDEXER_CHAIN_ID ${chainId} does not match the manifest's chainId ${manifest.chainId}`)
  }

  const rpcUrl = read.url('INDEXER_RPC_URL', manifest?.rpcUrl ?? (chainId === undefined ? undefined : defaultRpcUrl(chainId)))
  if (rpcUrl === undefined && chainId !== undefined) read.problem(`INDEXER_RPC_URL is required: chain ${chainId} has no public RPC built in`)
  if (rpcUrl !== undefined && /^wss?:/i.test(rpcUrl)) read.problem('INDEXER_RPC_URL must be an http(s) URL for order-relay mcp (it reads with single requests)')

  let registry = manifest?.contracts.registry as Address | undefined
  if (!registry && !manifestPath) {
    const addresses = read.list('INDEXER_ADDRESSES')
    if (addresses.length === 0) read.problem('INDEXER_ADDRESSES (registry,inbox,pool,escrow) or INDEXER_MANIFEST is required')
    else if (!addresses.every(isAddressString)) {
      read.problem('INDEXER_ADDRESSES must be a comma list of addresses (0x + 40 hex digits), the LienRegistry first')
    } else registry = addresses[0] as Address
  }

  read.done('MCP server')
  if (chainId === undefined || rpcUrl === undefined || registry === undefined) throw new Error('unreachable: configuration incomplete')
  return { chainId, rpcUrl, registry: getAddress(registry) }
}
