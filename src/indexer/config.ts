import { type Address, getAddress } from 'viem'
import type { Manifest } from '../chain/manifest.ts'
import { resolveChain } from '../chain/resolveChain.ts'
import { type MetricsListen, readMetricsListen } from '../metrics/config.ts'
import { ConfigError, createEnvReader, type Env } from '../shared/index.ts'
import { isAddressString, isDecimalString } from '../wire/index.ts'
import { defaultStorePath } from './store/location.ts'

export type IndexerConfig = {
  chainId: number
  rpcUrl: string
  /** registry, inbox, pool, escrow — in that order. */
  addresses: readonly [Address, Address, Address, Address]
  /** First block to index: the block the contracts were deployed at. */
  deployedAt: bigint
  host: string
  port: number
  /** Most events the snapshot keeps; older ones drop from the front. */
  retention: number
  /** `stale` once the indexer is more than this many blocks behind the head. */
  staleBlocks: number
  /** `stale` once the head could not be read for longer than this. */
  headStaleMs: number
  /** Pause between sync ticks. */
  pollMs: number
  /** Largest `eth_getLogs` block range asked for; shrinks when the node refuses. */
  maxRange: number
  /** How many recent block hashes are kept for reorg detection. */
  reorgWindow: number
  /** Prometheus listener (INDEXER_METRICS_PORT / INDEXER_METRICS_HOST); undefined when off. */
  metrics?: MetricsListen
  /** The store: a SQLite file path, or `:memory:` (nothing survives a restart). */
  db: string
  /** INDEXER_DATABASE_URL: the index in PostgreSQL instead (one writer, read replicas); `db` is then unused. */
  databaseUrl?: string | undefined
  /**
   * INDEXER_ROLE, with INDEXER_DATABASE_URL: `auto` (the writer while it holds the lock,
   * else a standby read replica that takes over) or `reader` (a read-only replica: never
   * the writer, no schema rights, no `eth_getLogs`).
   */
  role: IndexerRole
  /** A writer that commits nothing this long while the chain is ahead of it is replaced by a standby. */
  writerTimeoutMs: number
  /** `GET /activity/stream` (docs/indexer.md "Live activity"). */
  stream: StreamLimits
}

export type IndexerRole = 'auto' | 'reader'

export type StreamLimits = {
  /** A comment line on a stream quiet this long, so proxies keep it open. */
  heartbeatMs: number
  /** A stream whose client has not taken the message written to it for this long is cut off (with where to resume). */
  stallMs: number
  /** Most streams open at once; one more answers 503. */
  maxClients: number
}

/** Documented defaults of the optional variables. */
export const indexerDefaults = {
  port: 8788,
  host: '127.0.0.1',
  retention: 10_000,
  staleBlocks: 64,
  headStaleMs: 30_000,
  pollMs: 1_000,
  maxRange: 2_000,
  reorgWindow: 128,
  role: 'auto',
  writerTimeoutMs: 30_000,
  streamHeartbeatMs: 15_000,
  streamStallMs: 10_000,
  streamMaxClients: 10_000,
} as const

export type IndexerConfigOverrides = Partial<IndexerConfig> & { manifestPath?: string | undefined }

/** The environment variables the indexer reads, for `--help`. */
export const indexerEnvironment = [
  'INDEXER_RPC_URL       JSON-RPC URL of the node (default: the manifest\'s, or the chain\'s public RPC)',
  'INDEXER_CHAIN_ID      chain id (default: the manifest\'s)',
  'INDEXER_MANIFEST      devnet/deploy manifest with the addresses and deployedAt (--manifest wins)',
  'INDEXER_ADDRESSES     registry,inbox,pool,escrow (4 addresses, comma-separated) instead of a manifest',
  'INDEXER_DEPLOYED_AT   first block to index (required with INDEXER_ADDRESSES)',
  `INDEXER_HOST          listening address (default ${indexerDefaults.host})`,
  `INDEXER_PORT          listening port (default ${indexerDefaults.port})`,
  `INDEXER_RETENTION     most events kept; older ones drop and set truncated (default ${indexerDefaults.retention})`,
  `INDEXER_STALE_BLOCKS  stale when more blocks than this behind the head (default ${indexerDefaults.staleBlocks})`,
  `INDEXER_HEAD_STALE_MS stale when the head was unreadable for longer than this (default ${indexerDefaults.headStaleMs})`,
  `INDEXER_POLL_MS       pause between sync ticks (default ${indexerDefaults.pollMs})`,
  `INDEXER_MAX_RANGE     largest eth_getLogs block range; halves when the node refuses (default ${indexerDefaults.maxRange})`,
  'INDEXER_METRICS_PORT  Prometheus GET /metrics on its own port (default off)',
  'INDEXER_METRICS_HOST  address of the metrics listener (default 127.0.0.1)',
  'INDEXER_DATABASE_URL  postgres://… : the index in PostgreSQL, shared by replicas (one writer by advisory lock, the rest serve reads); wins over INDEXER_DB',
  'INDEXER_DB            SQLite file of the index, or :memory: (default .order-relay/indexer-<chain>-<digest>.sqlite in the working directory)',
  'INDEXER_ROLE          with INDEXER_DATABASE_URL: auto (the writer when the lock is free, else a standby replica; default) or reader (a read-only replica: never writes, needs only SELECT)',
  `INDEXER_WRITER_TIMEOUT_MS a writer committing nothing this long while the chain is ahead is replaced by a standby (default ${indexerDefaults.writerTimeoutMs})`,
  `INDEXER_STREAM_HEARTBEAT_MS comment line on a quiet /activity/stream (default ${indexerDefaults.streamHeartbeatMs})`,
  `INDEXER_STREAM_STALL_MS a stream whose client takes nothing this long is cut off with its resume cursor (default ${indexerDefaults.streamStallMs})`,
  `INDEXER_STREAM_MAX_CLIENTS most /activity/stream connections at once (default ${indexerDefaults.streamMaxClients})`,
]

/**
 * Reads the indexer's configuration (DESIGN.md "Indexer"), checking every value; a
 * `--manifest` flag (overrides.manifestPath) wins over INDEXER_MANIFEST, and explicit
 * variables win over the manifest. Throws one ConfigError naming each bad variable.
 *
 * @example
 * const config = readIndexerConfig(process.env, { manifestPath: '.devnet/manifest.json' })
 */
export function readIndexerConfig(env: Env, overrides: IndexerConfigOverrides = {}): IndexerConfig {
  const read = createEnvReader(env)

  const { manifest, chainId, rpcUrl } = resolveChain(read, { prefix: 'INDEXER', manifestPath: overrides.manifestPath, chainId: overrides.chainId, rpcUrl: overrides.rpcUrl })

  const addresses = overrides.addresses ?? readAddresses(read, manifest)
  const deployedAt = overrides.deployedAt ?? readDeployedAt(read, manifest)

  const int = (name: string, fallback: number, min: number, max: number) => read.integer(name, fallback, min, max) ?? fallback
  const config: IndexerConfig = {
    chainId: chainId as number,
    rpcUrl: rpcUrl as string,
    addresses: addresses as IndexerConfig['addresses'],
    deployedAt: deployedAt ?? 0n,
    host: overrides.host ?? read.string('INDEXER_HOST', indexerDefaults.host) ?? indexerDefaults.host,
    port: overrides.port ?? int('INDEXER_PORT', indexerDefaults.port, 0, 65535),
    retention: overrides.retention ?? int('INDEXER_RETENTION', indexerDefaults.retention, 1, 10_000_000),
    staleBlocks: overrides.staleBlocks ?? int('INDEXER_STALE_BLOCKS', indexerDefaults.staleBlocks, 0, 1_000_000_000),
    headStaleMs: overrides.headStaleMs ?? int('INDEXER_HEAD_STALE_MS', indexerDefaults.headStaleMs, 1, 86_400_000),
    pollMs: overrides.pollMs ?? int('INDEXER_POLL_MS', indexerDefaults.pollMs, 1, 3_600_000),
    maxRange: overrides.maxRange ?? int('INDEXER_MAX_RANGE', indexerDefaults.maxRange, 1, 10_000_000),
    reorgWindow: overrides.reorgWindow ?? indexerDefaults.reorgWindow,
    metrics: 'metrics' in overrides ? overrides.metrics : readMetricsListen(read, 'INDEXER'),
    db: overrides.db ?? read.string('INDEXER_DB') ?? '',
    databaseUrl: 'databaseUrl' in overrides ? overrides.databaseUrl : readDatabaseUrl(read),
    role: overrides.role ?? readRole(read),
    writerTimeoutMs: overrides.writerTimeoutMs ?? int('INDEXER_WRITER_TIMEOUT_MS', indexerDefaults.writerTimeoutMs, 100, 86_400_000),
    stream: overrides.stream ?? {
      heartbeatMs: int('INDEXER_STREAM_HEARTBEAT_MS', indexerDefaults.streamHeartbeatMs, 10, 3_600_000),
      stallMs: int('INDEXER_STREAM_STALL_MS', indexerDefaults.streamStallMs, 10, 3_600_000),
      maxClients: int('INDEXER_STREAM_MAX_CLIENTS', indexerDefaults.streamMaxClients, 1, 1_000_000),
    },
  }
  if (config.role === 'reader' && !config.databaseUrl) read.problem('INDEXER_ROLE=reader needs INDEXER_DATABASE_URL: a read-only replica serves what a writer stored in PostgreSQL')
  read.done('indexer')
  if (!config.db) config.db = defaultStorePath(config.chainId, config.addresses, config.deployedAt)
  return config
}

/** INDEXER_DATABASE_URL: a postgres:// or postgresql:// URL (never echoed: it may hold a password). */
function readDatabaseUrl(read: ReturnType<typeof createEnvReader>): string | undefined {
  const raw = read.string('INDEXER_DATABASE_URL')
  if (raw === undefined || raw === '') return undefined
  if (!/^postgres(ql)?:\/\/[^/]/.test(raw)) {
    read.problem('INDEXER_DATABASE_URL must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database)')
    return undefined
  }
  return raw
}

function readRole(read: ReturnType<typeof createEnvReader>): IndexerRole {
  const raw = read.string('INDEXER_ROLE')
  if (raw === undefined || raw === '' || raw === 'auto') return 'auto'
  if (raw === 'reader') return 'reader'
  read.problem(`INDEXER_ROLE must be auto or reader (got ${JSON.stringify(raw.slice(0, 40))})`)
  return 'auto'
}

function readAddresses(read: ReturnType<typeof createEnvReader>, manifest: Manifest | undefined): Address[] | undefined {
  if (read.has('INDEXER_ADDRESSES')) {
    const list = read.list('INDEXER_ADDRESSES')
    if (list.length !== 4 || !list.every(isAddressString)) {
      read.problem('INDEXER_ADDRESSES must be 4 comma-separated addresses (0x + 40 hex digits): registry,inbox,pool,escrow')
      return undefined
    }
    return list.map((item) => getAddress(item.toLowerCase()))
  }
  if (manifest) {
    const { registry, inbox, pool, escrow } = manifest.contracts
    return [registry, inbox, pool, escrow].map((item) => getAddress(item.toLowerCase()))
  }
  read.problem('INDEXER_MANIFEST or INDEXER_ADDRESSES (registry,inbox,pool,escrow) is required')
  return undefined
}

function readDeployedAt(read: ReturnType<typeof createEnvReader>, manifest: Manifest | undefined): bigint | undefined {
  const raw = read.string('INDEXER_DEPLOYED_AT')
  if (raw !== undefined) {
    if (isDecimalString(raw)) return BigInt(raw)
    read.problem(`INDEXER_DEPLOYED_AT must be a block number (got ${JSON.stringify(raw.slice(0, 40))})`)
    return undefined
  }
  if (manifest) return BigInt(manifest.deployedAt)
  if (read.has('INDEXER_ADDRESSES')) {
    read.problem('INDEXER_DEPLOYED_AT is required with INDEXER_ADDRESSES: the block the contracts were deployed at (0 scans from genesis)')
  }
  return undefined
}

export { ConfigError }
