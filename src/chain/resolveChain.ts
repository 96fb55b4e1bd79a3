import type { EnvReader } from '../shared/env.ts'
import { defaultRpcUrl } from './chains.ts'
import { type Manifest, ManifestError, readManifest } from './manifest.ts'

export type ResolveChainOptions = {
  /** The variables' prefix: `RELAYER` reads RELAYER_MANIFEST, RELAYER_CHAIN_ID, RELAYER_RPC_URL. */
  prefix: 'RELAYER' | 'INDEXER'
  /** A manifest given in code (the devnet's own): read instead of a file. */
  manifest?: Manifest | undefined
  /** `--manifest PATH`: wins over `<prefix>_MANIFEST`. */
  manifestPath?: string | undefined
  /** A chain id given in code: wins over `<prefix>_CHAIN_ID` and the manifest. */
  chainId?: number | undefined
  /** An RPC URL given in code: wins over `<prefix>_RPC_URL`, the manifest and the chain's. */
  rpcUrl?: string | undefined
}

/** Where a service talks to: the manifest (when one was named and read), the chain and its RPC; undefined where a problem was reported. */
export type ResolvedChain = {
  manifest: Manifest | undefined
  /** Whether a manifest was given or named (by flag or variable), read or not. */
  manifestNamed: boolean
  chainId: number | undefined
  rpcUrl: string | undefined
}

/**
 * The manifest → chain → RPC resolution every service's configuration starts with
 * (relayer, indexer, MCP server): the manifest from `--manifest` or `<prefix>_MANIFEST`;
 * the chain from `<prefix>_CHAIN_ID`, else the manifest's, and the two must agree; the
 * RPC from `<prefix>_RPC_URL`, else the manifest's, else the chain's public one. Every
 * problem goes to `read` (the caller's reader reports them all at once), worded the
 * same for each service.
 *
 * @example
 * const read = createEnvReader(env)
 * const { manifest, chainId, rpcUrl } = resolveChain(read, { prefix: 'INDEXER', manifestPath })
 */
export function resolveChain(read: EnvReader, options: ResolveChainOptions): ResolvedChain {
  const { prefix } = options
  const manifestVariable = `${prefix}_MANIFEST`
  const chainVariable = `${prefix}_CHAIN_ID`
  const rpcVariable = `${prefix}_RPC_URL`

  let manifest = options.manifest
  const manifestPath = options.manifestPath ?? read.string(manifestVariable)
  if (manifestPath && !manifest) {
    try {
      manifest = readManifest(manifestPath)
    } catch (error) {
      const source = options.manifestPath !== undefined ? '--manifest' : manifestVariable
      read.problem(error instanceof ManifestError ? `${source}: ${error.message}` : String(error))
    }
  }

  const chainId = options.chainId ?? read.integer(chainVariable, manifest?.chainId, 1, Number.MAX_SAFE_INTEGER)
  // A manifest that could not be read, or a chain id that is not a number, was reported already.
  if (chainId === undefined && !manifestPath && !read.has(chainVariable)) {
    read.problem(`${chainVariable} is required (421614 or 46630, or a devnet chain id), or give a manifest`)
  }
  if (manifest && chainId !== undefined && manifest.chainId !== chainId) {
    read.problem(`${chainVariable} ${chainId} does not match the manifest's chainId ${manifest.chainId}`)
  }

  const rpcUrl = options.rpcUrl ?? read.url(rpcVariable, manifest?.rpcUrl ?? (chainId === undefined ? undefined : defaultRpcUrl(chainId)))
  if (rpcUrl === undefined && chainId !== undefined) read.problem(`${rpcVariable} is required: chain ${chainId} has no public RPC built in`)

  return { manifest, manifestNamed: Boolean(manifestPath || options.manifest), chainId, rpcUrl }
}
