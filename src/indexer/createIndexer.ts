import { createPublicClient, http, type PublicClient, webSocket } from 'viem'
import packageJson from '../../package.json' with { type: 'json' }
import { chainFor } from '../chain/index.ts'
import { listenUrl, type Logger } from '../shared/index.ts'
import { boundedFetch } from './boundedFetch.ts'
import type { IndexerConfig } from './config.ts'
import { createIndexerApp } from './http/app.ts'
import { readiness } from './readiness.ts'
import { createSnapshotCache } from './snapshot.ts'
import { createReplicaRoles } from './replica/index.ts'
import { createPostgresStore, type IndexerStore, openSqliteStore } from './store/index.ts'
import { createActivityFeed, createActivityStreamRoute } from './stream/index.ts'
import { createSyncer } from './sync/syncer.ts'
import { createIndexerMetrics, type MetricsListener, observeTransport, serveMetrics } from '../metrics/index.ts'
import { indexerOperationsRoutes } from './http/operations.ts'

/**
 * Largest JSON-RPC answer read. viem's default (10 MiB) refuses an `eth_getLogs`
 * range of ~20,000 logs only after the node has built and sent it, and the range
 * then halves and grows back into the same refusal; ranges are already bounded by
 * INDEXER_MAX_RANGE, so this only guards against a runaway answer (boundedFetch.ts).
 */
export const maxRpcResponseBytes = 256 * 2 ** 20

export type IndexerDependencies = {
  logger: Logger
  /** Override the RPC client (tests). */
  client?: PublicClient
  /** Clock for staleness (tests); Date.now by default. */
  now?: () => number
  /** The version the OpenAPI document states; the package's by default. */
  version?: string
  /** Override the store (tests, the PostgreSQL store); SQLite at `config.db` by default. */
  store?: IndexerStore
}

export type IndexerServeOptions = {
  /** Run the sync loop (default true); tests may drive `sync.syncOnce()` themselves. */
  sync?: boolean
}

/**
 * Builds the indexer: the syncer following the registry contracts' logs, the
 * snapshot cache and the HTTP app. Nothing listens or syncs until `serve`.
 *
 * @example
 * const indexer = createIndexer(readIndexerConfig(process.env), { logger })
 * const server = await indexer.serve()
 * // GET `${server.url}/activity`
 * await server.stop()
 */
export function createIndexer(config: IndexerConfig, dependencies: IndexerDependencies) {
  const { logger } = dependencies
  const now = dependencies.now ?? Date.now
  // The gauges read the snapshot GET /activity serves (built once per state).
  const metrics = createIndexerMetrics(() => snapshots.current().snapshot)
  const client =
    dependencies.client ??
    (createPublicClient({
      chain: chainFor(config.chainId, config.rpcUrl),
      transport: /^wss?:/.test(config.rpcUrl)
        ? observeTransport(webSocket(config.rpcUrl, { retryCount: 0, timeout: 10_000 }), metrics.rpc)
        : observeTransport(
            http(config.rpcUrl, { retryCount: 0, timeout: 10_000, fetchFn: boundedFetch(maxRpcResponseBytes), maxResponseBodySize: false }),
            metrics.rpc,
          ),
      cacheTime: 0,
    }) as PublicClient)
  const identity = { chainId: config.chainId, addresses: config.addresses, deployedAt: config.deployedAt }
  // INDEXER_DATABASE_URL: one index in PostgreSQL shared by replicas, the writer elected by an advisory lock
  // (INDEXER_ROLE=reader: a replica that only reads).
  const postgres =
    dependencies.store === undefined && config.databaseUrl !== undefined
      ? createPostgresStore({ url: config.databaseUrl, identity, retention: config.retention, hashWindow: config.reorgWindow, logger, readOnly: config.role === 'reader' })
      : undefined
  const store = dependencies.store ?? postgres ?? openSqliteStore({ path: config.db, identity, retention: config.retention, hashWindow: config.reorgWindow, logger })
  const syncer = createSyncer({ client, config, logger, now, store, onReorg: metrics.reorg })
  const roles = postgres ? createReplicaRoles({ store: postgres, syncer, config, logger, now }) : undefined
  const snapshots = createSnapshotCache(config, syncer.status, now)
  const stream = createActivityStreamRoute(createActivityFeed({ syncer, config, now, replica: () => roles?.state() }), { limits: config.stream, logger })
  const app = createIndexerApp(snapshots, logger, {
    version: dependencies.version ?? packageJson.version,
    readiness: () => readiness(config, syncer.status(), now, roles?.state()),
    operations: indexerOperationsRoutes(config, snapshots, metrics),
    stream,
  })

  return {
    app,
    config,
    /** The Prometheus registry (served on INDEXER_METRICS_PORT when set). */
    metrics,
    sync: {
      /** One tick: read the head, rewind a reorg, index up to the head. Never throws. */
      syncOnce: syncer.syncOnce,
      /** Reads the head without indexing. */
      refreshHead: syncer.refreshHead,
      start: syncer.start,
      stop: syncer.stop,
      status: syncer.status,
      /** With INDEXER_DATABASE_URL: writer or reader, and why PostgreSQL cannot be used right now. */
      replica: () => roles?.state(),
      /** The snapshot `GET /activity` answers right now. */
      snapshot: () => snapshots.current().snapshot,
    },
    /** `GET /activity/stream`: streams open now and streams cut off for not reading. */
    streams: stream.stats,
    /** Loads the store, listens and starts syncing (with PostgreSQL: as writer or read replica); resolves once the port is bound. */
    async serve(options: IndexerServeOptions = {}) {
      await postgres?.open()
      await syncer.load()
      const server = Bun.serve({ hostname: config.host, port: config.port, fetch: app.fetch })
      const url = listenUrl(config.host, server.port as number)
      if (options.sync !== false) {
        if (roles) await roles.start()
        else syncer.start()
      }
      const metricsListener: MetricsListener | undefined = config.metrics ? serveMetrics(metrics.registry, { ...config.metrics, logger, surface: 'indexer' }) : undefined
      const [registry, inbox, pool, escrow] = config.addresses
      logger.info(
        `indexer on chain ${config.chainId} from block ${config.deployedAt} (registry ${registry}, inbox ${inbox}, pool ${pool}, escrow ${escrow}), store ${store.location}, listening on ${url}`,
      )
      let stopped: Promise<void> | undefined
      return {
        url,
        port: server.port as number,
        metricsUrl: metricsListener?.url,
        /** Stops syncing and listening; safe to call twice. */
        stop() {
          stopped ??= (async () => {
            await (roles ?? syncer).stop()
            server.stop(true)
            metricsListener?.stop()
            await store.close()
          })()
          return stopped
        },
      }
    },
  }
}

export type Indexer = ReturnType<typeof createIndexer>
export type IndexerServer = Awaited<ReturnType<Indexer['serve']>>
