// The indexer: GET /health, GET /activity — a reorg-safe, retention-capped view of the registry contracts' events.
export { ConfigError, type IndexerConfig, type IndexerConfigOverrides, indexerDefaults, indexerEnvironment, readIndexerConfig } from './config.ts'
export { createIndexer, type Indexer, type IndexerDependencies, type IndexerServer, type IndexerServeOptions } from './createIndexer.ts'
export { reservedPaths } from './http/app.ts'
export type { SyncStatus } from './sync/syncer.ts'
