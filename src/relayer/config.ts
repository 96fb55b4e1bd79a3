import type { Address, Hex } from 'viem'
import { defaultConfirmations } from '../chain/chains.ts'
import type { Manifest, ManifestAdapter } from '../chain/manifest.ts'
import { resolveChain } from '../chain/resolveChain.ts'
import { type MetricsListen, readMetricsListen } from '../metrics/config.ts'
import { ConfigError, createEnvReader, type Env } from '../shared/index.ts'
import { type GasSignerKind, keySourceOf } from '../signers/index.ts'
import { builtinTokenPrices, type EconomicsConfig, mergeTokenPrices, parseTokenPrices, splitTokenList, type TokenPrice } from './economics/index.ts'
import type { EdgeConfig } from './edge/edgeConfig.ts'
import { oneHop, parseTrustedProxies, type TrustedProxies } from './edge/trustedProxies.ts'


export type { EdgeConfig }

export type RelayerConfig = {
  /**
   * The gas key, only until `createRelayer` builds the account (`takePrivateKey`
   * removes it): a config object that is logged, snapshotted or kept around later
   * holds no key. Never logged, never in a response or error.
   */
  privateKey?: Hex
  /**
   * Where the gas key lives (keySource.ts): `private-key` is RELAYER_PK above; a keystore,
   * a remote signer or KMS is opened before the relayer is built (`openGasSigner`) and
   * handed to `createRelayer` as its `gasSigner`.
   */
  keySource: GasSignerKind
  chainId: number
  rpcUrl: string
  broker: Address
  /** First block to search for `Brokered` logs when recovering a replayed order's txHash. */
  deployedAt: bigint
  host: string
  port: number
  feeFloorBps: number
  receiptTimeoutMs: number
  receiptPollMs: number
  /** A WebSocket URL of the same node (RELAYER_WS_URL): new block heads are pushed instead of polled for. */
  wsUrl?: string
  /** The journal's file (RELAYER_DB); undefined: the default per chain and gas address under `.order-relay/`. */
  journalPath: string | undefined
  /** Resolved slots and kept reverts older than this many days are pruned from the journal (RELAYER_JOURNAL_RETENTION_DAYS). */
  journalRetentionDays: number
  /** How long after the last sign of another process on the key the relayer takes orders again (RELAYER_KEY_CONFLICT_QUIET_MS). */
  keyConflictQuietMs: number
  /** Most signatures asked of a remote signer or KMS at once (RELAYER_SIGNER_CONCURRENCY); a local key signs in its thread. */
  signerConcurrency: number
  /** How long one signature of a remote signer or KMS may take before the signer counts as down (RELAYER_SIGNER_TIMEOUT_MS). */
  signerTimeoutMs: number
  /** Blocks deep a mined tx's block must be before its slot is final; until then the receipt watcher watches it for reorgs (RELAYER_CONFIRMATIONS). */
  confirmations: number
  /** How long a consumer is refused after its order passed simulation and reverted on chain. */
  revertCooldownMs: number
  /** Reverts of one adapter's or one pay token's orders within `revertCooldownMs` after which that adapter or token is refused too. */
  revertCooldownMax: number
  /** What the key may spend and what each order must pay for it (docs/economics.md). */
  economics: EconomicsConfig
  /** How long a `POST /broker` body may take to arrive (RELAYER_BODY_TIMEOUT_MS). */
  bodyTimeoutMs: number
  edge: EdgeConfig
  /** Shared state of relayer replicas (RELAYER_REDIS_URL, docs/scaling.md); undefined: one process, local state. */
  redisUrl?: string
  /** How long after Redis lost its state no replica takes a new order (RELAYER_REDIS_RESTORE_MS, docs/scaling.md). */
  redisRestoreMs: number
  /** Prometheus listener (RELAYER_METRICS_PORT / RELAYER_METRICS_HOST); undefined when off. */
  metrics?: MetricsListen
  /** Adapters the project does not ship whose reverts and events to decode by name (the manifest's `adapters`). */
  adapters?: ManifestAdapter[]
}

/** Documented defaults of the optional variables. */
export const relayerDefaults = {
  port: 8787,
  host: '127.0.0.1',
  feeFloorBps: 0,
  receiptTimeoutMs: 60_000,
  receiptPollMs: 250,
  bodyTimeoutMs: 10_000,
  ratePerSec: 5,
  rateBurst: 20,
  maxInflight: 64,
  gasFloorWei: 1_000_000_000_000_000n, // 0.001 ETH
  balancePollMs: 5_000,
  revertCooldownMs: 600_000,
  redisRestoreMs: 5_000,
  revertCooldownMax: 3,
  journalRetentionDays: 30,
  keyConflictQuietMs: 600_000,
  signerConcurrency: 64,
  signerTimeoutMs: 10_000,
  minMarginBps: 1_000,
  // A day (Chainlink's longest heartbeat) and an hour of grace.
  priceMaxAgeSeconds: 90_000,
  priceRefreshMs: 60_000,
  maxPriorityFeePerGasWei: 2_000_000_000n, // 2 gwei
} as const

export type RelayerConfigOverrides = Partial<Omit<RelayerConfig, 'edge' | 'economics'>> & {
  manifestPath?: string | undefined
  /** A manifest already read (the devnet's own): read as RELAYER_MANIFEST's would be, for what the overrides leave out. */
  manifest?: Manifest | undefined
  edge?: Partial<EdgeConfig> | undefined
  economics?: Partial<EconomicsConfig> | undefined
}

/**
 * Reads the relayer's configuration from the environment (DESIGN.md "Relayer"),
 * checking every value; a `--manifest` flag (overrides.manifestPath) wins over
 * RELAYER_MANIFEST. Throws a ConfigError naming each bad variable.
 */
export function readRelayerConfig(env: Env, overrides: RelayerConfigOverrides = {}): RelayerConfig {
  const read = createEnvReader(env)
  // Exactly one source of the gas key; a key given by the caller is the source.
  const keySource = overrides.privateKey ? { kind: 'private-key' as const } : keySourceOf(env, read.problem)
  const privateKey = overrides.privateKey ?? (keySource?.kind === 'private-key' ? read.privateKey('RELAYER_PK', true) : undefined)

  const { manifest, chainId, rpcUrl } = resolveChain(read, { prefix: 'RELAYER', manifest: overrides.manifest, manifestPath: overrides.manifestPath, chainId: overrides.chainId, rpcUrl: overrides.rpcUrl })

  const broker = overrides.broker ?? read.address('RELAYER_BROKER') ?? (manifest?.contracts.broker as Address | undefined)
  if (!broker) read.problem('RELAYER_BROKER (the Broker contract address) or RELAYER_MANIFEST is required')

  const rateVars = ['RELAYER_RATE_PER_SEC', 'RELAYER_RATE_BURST']
  for (const name of Object.keys(env)) {
    if (name.startsWith('RELAYER_RATE_') && !rateVars.includes(name)) read.problem(`${name} is not a known variable (expected ${rateVars.join(' or ')})`)
  }
  const hardenedVars = [...rateVars, 'RELAYER_MAX_INFLIGHT', 'RELAYER_GAS_FLOOR_WEI', 'RELAYER_CORS_ORIGINS']
  const edge: EdgeConfig = {
    enabled: read.flag('RELAYER_HARDENED') || hardenedVars.some((name) => read.has(name)),
    ratePerSec: read.positiveNumber('RELAYER_RATE_PER_SEC', relayerDefaults.ratePerSec),
    rateBurst: read.integer('RELAYER_RATE_BURST', relayerDefaults.rateBurst, 1, 1_000_000) ?? relayerDefaults.rateBurst,
    maxInflight: read.integer('RELAYER_MAX_INFLIGHT', relayerDefaults.maxInflight, 1, 1_000_000) ?? relayerDefaults.maxInflight,
    gasFloorWei: read.bigint('RELAYER_GAS_FLOOR_WEI', relayerDefaults.gasFloorWei),
    corsOrigins: read.list('RELAYER_CORS_ORIGINS').map((entry) => corsOrigin(entry, read.problem)),
    trustProxy: read.flag('RELAYER_TRUST_PROXY'),
    trustedProxies: readTrustedProxies(read, env),
    balancePollMs: read.integer('RELAYER_BALANCE_POLL_MS', relayerDefaults.balancePollMs, 10, 3_600_000) ?? relayerDefaults.balancePollMs,
    ...overrides.edge,
  }

  const config = {
    ...(privateKey ? { privateKey } : {}),
    keySource: keySource?.kind ?? 'private-key',
    chainId: chainId as number,
    rpcUrl: rpcUrl as string,
    broker: broker as Address,
    deployedAt: overrides.deployedAt ?? read.bigint('RELAYER_DEPLOYED_AT', BigInt(manifest?.deployedAt ?? '0')),
    host: overrides.host ?? read.string('RELAYER_HOST', relayerDefaults.host) ?? relayerDefaults.host,
    port: overrides.port ?? read.integer('RELAYER_PORT', relayerDefaults.port, 0, 65535) ?? relayerDefaults.port,
    feeFloorBps: overrides.feeFloorBps ?? read.integer('RELAYER_FEE_FLOOR_BPS', relayerDefaults.feeFloorBps, 0, 10000) ?? 0,
    receiptTimeoutMs:
      overrides.receiptTimeoutMs ?? read.integer('RELAYER_RECEIPT_TIMEOUT_MS', relayerDefaults.receiptTimeoutMs, 100, 3_600_000) ?? relayerDefaults.receiptTimeoutMs,
    receiptPollMs: overrides.receiptPollMs ?? read.integer('RELAYER_RECEIPT_POLL_MS', relayerDefaults.receiptPollMs, 1, 60_000) ?? relayerDefaults.receiptPollMs,
    // The manifest's WebSocket is the default only while its rpcUrl is the node in use: a WebSocket must reach the same node.
    ...(overrides.wsUrl ? { wsUrl: overrides.wsUrl } : readWsUrl(read, manifest?.wsUrl !== undefined && rpcUrl === manifest.rpcUrl ? manifest.wsUrl : undefined)),
    journalPath: overrides.journalPath ?? read.string('RELAYER_DB'),
    keyConflictQuietMs:
      overrides.keyConflictQuietMs ?? read.integer('RELAYER_KEY_CONFLICT_QUIET_MS', relayerDefaults.keyConflictQuietMs, 1_000, 86_400_000) ?? relayerDefaults.keyConflictQuietMs,
    signerConcurrency:
      overrides.signerConcurrency ?? read.integer('RELAYER_SIGNER_CONCURRENCY', relayerDefaults.signerConcurrency, 1, 1_024) ?? relayerDefaults.signerConcurrency,
    signerTimeoutMs: overrides.signerTimeoutMs ?? read.integer('RELAYER_SIGNER_TIMEOUT_MS', relayerDefaults.signerTimeoutMs, 10, 600_000) ?? relayerDefaults.signerTimeoutMs,
    confirmations:
      overrides.confirmations ??
      read.integer('RELAYER_CONFIRMATIONS', chainId === undefined ? 12 : defaultConfirmations(chainId), 1, 10_000) ??
      (chainId === undefined ? 12 : defaultConfirmations(chainId)),
    journalRetentionDays:
      overrides.journalRetentionDays ?? read.integer('RELAYER_JOURNAL_RETENTION_DAYS', relayerDefaults.journalRetentionDays, 1, 36_500) ?? relayerDefaults.journalRetentionDays,
    revertCooldownMs:
      overrides.revertCooldownMs ?? read.integer('RELAYER_REVERT_COOLDOWN_MS', relayerDefaults.revertCooldownMs, 0, 30 * 86_400_000) ?? relayerDefaults.revertCooldownMs,
    bodyTimeoutMs: overrides.bodyTimeoutMs ?? read.integer('RELAYER_BODY_TIMEOUT_MS', relayerDefaults.bodyTimeoutMs, 100, 600_000) ?? relayerDefaults.bodyTimeoutMs,
    revertCooldownMax:
      overrides.revertCooldownMax ?? read.integer('RELAYER_REVERT_COOLDOWN_MAX', relayerDefaults.revertCooldownMax, 1, 1_000_000) ?? relayerDefaults.revertCooldownMax,
    economics: { ...readEconomics(read, chainId, manifest), ...overrides.economics },
    edge,
    metrics: 'metrics' in overrides ? overrides.metrics : readMetricsListen(read, 'RELAYER'),
    ...((overrides.adapters ?? manifest?.adapters) ? { adapters: overrides.adapters ?? manifest?.adapters } : {}),
    ...readRedisUrl(read),
    redisRestoreMs:
      overrides.redisRestoreMs ?? read.integer('RELAYER_REDIS_RESTORE_MS', relayerDefaults.redisRestoreMs, 200, 600_000) ?? relayerDefaults.redisRestoreMs,
  }
  read.done('relayer')
  return config
}

/**
 * The economics variables (docs/economics.md). Pay tokens: RELAYER_TOKENS, then the manifest's
 * `tokens`, then the chain's built-in defaults (the first to name a token wins).
 */
function readEconomics(read: ReturnType<typeof createEnvReader>, chainId: number | undefined, manifest: Manifest | undefined): EconomicsConfig {
  const parsed = (entries: Array<readonly [string, string]>, origin: TokenPrice['origin']) => {
    const { prices, problems } = parseTokenPrices(entries, origin)
    for (const problem of problems) read.problem(problem)
    return prices
  }
  const tokens = mergeTokenPrices(
    parsed(splitTokenList(read.string('RELAYER_TOKENS') ?? ''), 'RELAYER_TOKENS'),
    parsed(Object.entries(manifest?.tokens ?? {}), 'manifest'),
    parsed([...(chainId === undefined ? [] : (builtinTokenPrices[chainId] ?? []))], 'built-in'),
  )
  const maxFeePerGasWei = read.has('RELAYER_MAX_FEE_PER_GAS_WEI') ? read.bigint('RELAYER_MAX_FEE_PER_GAS_WEI', 0n) : undefined
  if (maxFeePerGasWei === 0n) read.problem('RELAYER_MAX_FEE_PER_GAS_WEI must be above 0 wei (unset it for no cap)')
  const maxSpendWeiPerHour = read.has('RELAYER_MAX_SPEND_WEI_PER_HOUR') ? read.bigint('RELAYER_MAX_SPEND_WEI_PER_HOUR', 0n) : undefined
  return {
    tokens,
    priceMaxAgeSeconds: read.integer('RELAYER_PRICE_MAX_AGE_S', relayerDefaults.priceMaxAgeSeconds, 1, 30 * 86_400) ?? relayerDefaults.priceMaxAgeSeconds,
    priceRefreshMs: read.integer('RELAYER_PRICE_REFRESH_MS', relayerDefaults.priceRefreshMs, 100, 3_600_000) ?? relayerDefaults.priceRefreshMs,
    minMarginBps: read.integer('RELAYER_MIN_MARGIN_BPS', relayerDefaults.minMarginBps, 0, 1_000_000) ?? relayerDefaults.minMarginBps,
    unpricedGasBudgetWei: read.bigint('RELAYER_UNPRICED_GAS_BUDGET_WEI', 0n),
    maxPriorityFeePerGasWei: read.bigint('RELAYER_MAX_PRIORITY_FEE_WEI', relayerDefaults.maxPriorityFeePerGasWei),
    ...(maxFeePerGasWei ? { maxFeePerGasWei } : {}),
    ...(maxSpendWeiPerHour !== undefined ? { maxSpendWeiPerHour } : {}),
  }
}

/** RELAYER_TRUSTED_PROXIES (only meaningful with RELAYER_TRUST_PROXY=1); one hop when unset. */
function readTrustedProxies(read: ReturnType<typeof createEnvReader>, env: Env): TrustedProxies {
  const raw = read.string('RELAYER_TRUSTED_PROXIES')
  if (raw === undefined) return oneHop
  if (!['1', 'true'].includes(env.RELAYER_TRUST_PROXY ?? '')) read.problem('RELAYER_TRUSTED_PROXIES is only used with RELAYER_TRUST_PROXY=1: set both, or neither')
  const parsed = parseTrustedProxies(raw)
  if (typeof parsed === 'string') {
    read.problem(parsed)
    return oneHop
  }
  return parsed
}

/**
 * One RELAYER_CORS_ORIGINS entry as the browser sends it in `Origin`
 * (`scheme://host[:port]`, lower-case, default port dropped), or `*` for any origin.
 */
function corsOrigin(entry: string, problem: (message: string) => void): string {
  if (entry === '*') return entry
  try {
    const url = new URL(entry)
    if (/^https?:$/.test(url.protocol) && (url.pathname === '/' || url.pathname === '') && !url.search && !url.hash && !url.username) {
      return url.origin
    }
  } catch {}
  problem(`RELAYER_CORS_ORIGINS entries must be origins like https://app.example.com or http://127.0.0.1:3000, or * (got ${JSON.stringify(entry.slice(0, 80))})`)
  return entry
}

/**
 * The gas key, removed from `config` as it is handed over (call once, to build the
 * account). Throws if it was already taken: one config builds one relayer.
 */
export function takePrivateKey(config: RelayerConfig): Hex {
  const key = config.privateKey
  if (!key && config.keySource !== 'private-key') {
    throw new ConfigError(`the gas key is a ${config.keySource} signer: open it with openGasSigner and hand it to createRelayer as its gasSigner`)
  }
  if (!key) throw new ConfigError('RELAYER_PK was already taken from this configuration (build a relayer once per configuration)')
  delete config.privateKey
  return key
}

export { ConfigError }

/**
 * RELAYER_WS_URL (else `fallback`, the manifest's): ws:// or wss:// only, or `off` for
 * none even when the manifest names one (an empty value means unset, as for every
 * variable). The value is never repeated: it may hold a key.
 */
function readWsUrl(read: ReturnType<typeof createEnvReader>, fallback: string | undefined): { wsUrl?: string } {
  const own = read.string('RELAYER_WS_URL')
  if (own?.trim().toLowerCase() === 'off') return {}
  const raw = own ?? fallback
  if (raw === undefined || raw === '') return {}
  try {
    if (/^wss?:$/.test(new URL(raw).protocol)) return { wsUrl: raw }
  } catch {}
  read.problem('RELAYER_WS_URL must be a ws:// or wss:// URL of the same node as RELAYER_RPC_URL (for example ws://127.0.0.1:8545 for anvil), or off')
  return {}
}

/** RELAYER_REDIS_URL: redis:// or rediss:// (Redis or Valkey). The value is never repeated: it may hold a password. */
function readRedisUrl(read: ReturnType<typeof createEnvReader>): { redisUrl?: string } {
  const raw = read.string('RELAYER_REDIS_URL')
  if (raw === undefined || raw === '') return {}
  let protocol: string | undefined
  try {
    protocol = new URL(raw).protocol
  } catch {}
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    read.problem('RELAYER_REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379 (value not shown)')
    return {}
  }
  return { redisUrl: raw }
}
