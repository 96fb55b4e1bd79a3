// The indexer: GET /health, GET /ready, GET /activity (query parameters), GET /activity/stream (Server-Sent
// Events), GET /api/openapi.json — a durable, reorg-safe, retention-capped view of the registry contracts' events.
export { ConfigError, type IndexerConfig, type IndexerConfigOverrides, indexerDefaults, indexerEnvironment, type IndexerRole, readIndexerConfig, type StreamLimits } from './config.ts'
export { createIndexer, type Indexer, type IndexerDependencies, type IndexerServer, type IndexerServeOptions } from './createIndexer.ts'
export { reservedPaths } from './http/app.ts'
export { indexerOpenApiDocument } from './http/openapi.ts'
export { defaultStorePath, type IndexerStore, openSqliteStore } from './store/index.ts'
export type { SyncStatus } from './sync/syncer.ts'
