import { type Address, getAddress } from 'viem'
import { resolveChain } from '../chain/index.ts'
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

  const { manifest, manifestNamed, chainId, rpcUrl } = resolveChain(read, { prefix: 'INDEXER', manifestPath: overrides.manifestPath })
  if (rpcUrl !== undefined && /^wss?:/i.test(rpcUrl)) read.problem('INDEXER_RPC_URL must be an http(s) URL for order-relay mcp (it reads with single requests)')

  let registry = manifest?.contracts.registry as Address | undefined
  if (!registry && !manifestNamed) {
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
