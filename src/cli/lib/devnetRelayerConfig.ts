import type { Address, Hex } from 'viem'
import type { Manifest, ManifestAdapter } from '../../chain/index.ts'
import { type RelayerConfig, readRelayerConfig } from '../../relayer/config.ts'
import type { Env } from '../../shared/index.ts'

/**
 * What the devnet decides for its own relayer: its key, chain, node, Broker and
 * listening address. The same variables in the environment are ignored (the devnet
 * says which), since they would point the relayer away from the chain it started.
 */
export const devnetOwnedRelayerVariables = [
  'RELAYER_PK',
  'RELAYER_CHAIN_ID',
  'RELAYER_RPC_URL',
  'RELAYER_BROKER',
  'RELAYER_MANIFEST',
  'RELAYER_DEPLOYED_AT',
  'RELAYER_PORT',
  'RELAYER_HOST',
] as const

/**
 * The devnet's defaults where a standalone relayer's differ: receipts polled every
 * 50 ms (anvil mines at once), no journal file (a fresh chain each run: a journal kept
 * across runs would hold nonces it never saw), new blocks pushed over anvil's own
 * WebSocket. Each is a RELAYER_* variable a suite may set.
 */
export const devnetRelayerDefaults = {
  RELAYER_RECEIPT_POLL_MS: '50',
  RELAYER_DB: ':memory:',
} as const

export type DevnetRelayerParameters = {
  privateKey: Hex
  chainId: number
  rpcUrl: string
  broker: Address
  deployedAt: bigint
  port: number
  /** Adapters of the developer's own (the manifest's `adapters`): the relayer decodes their errors and events. */
  adapters?: ManifestAdapter[] | undefined
  /** The deployment's manifest: its `tokens` price the devnet's pay token (docs/economics.md). */
  manifest?: Manifest | undefined
}

/**
 * The devnet relayer's configuration: every RELAYER_* variable `order-relay relayer`
 * reads (fee floor, cool-down, caps, journal, hardened edge, metrics…), with the
 * devnet's defaults where unset, and the devnet's own chain, key and port.
 * `ignored` names the variables of the environment the devnet overrode.
 *
 * @throws ConfigError naming each bad variable
 * @example
 * const { config } = devnetRelayerConfig({ RELAYER_FEE_FLOOR_BPS: '25' }, { privateKey, chainId: 421614, rpcUrl, broker, deployedAt: 1n, port: 8787 })
 * config.feeFloorBps // 25
 */
export function devnetRelayerConfig(env: Env, devnet: DevnetRelayerParameters): { config: RelayerConfig; ignored: string[] } {
  const owned = new Set<string>(devnetOwnedRelayerVariables)
  const ignored = devnetOwnedRelayerVariables.filter((name) => env[name] !== undefined && env[name] !== '')
  const relayerEnv: Env = {}
  for (const [name, value] of Object.entries(env)) {
    if (!owned.has(name) && (name.startsWith('RELAYER_') || name === 'LOG_FORMAT')) relayerEnv[name] = value
  }
  for (const [name, value] of Object.entries(devnetRelayerDefaults)) {
    if (relayerEnv[name] === undefined || relayerEnv[name] === '') relayerEnv[name] = value
  }
  // anvil serves WebSocket on its HTTP port: blocks are pushed to the relayer unless RELAYER_WS_URL says otherwise.
  if (relayerEnv.RELAYER_WS_URL === undefined || relayerEnv.RELAYER_WS_URL === '') relayerEnv.RELAYER_WS_URL = devnet.rpcUrl.replace(/^http/, 'ws')
  const config = readRelayerConfig(relayerEnv, {
    privateKey: devnet.privateKey,
    chainId: devnet.chainId,
    rpcUrl: devnet.rpcUrl,
    broker: devnet.broker,
    deployedAt: devnet.deployedAt,
    host: '127.0.0.1',
    port: devnet.port,
    ...(devnet.adapters ? { adapters: devnet.adapters } : {}),
    ...(devnet.manifest ? { manifest: devnet.manifest } : {}),
  })
  return { config, ignored }
}
