// The indexer's durable state behind a small async interface: SQLite (embedded) or PostgreSQL (replicas).
export { defaultStorePath, indexDigest } from './location.ts'
export {
  createPostgresStore,
  type PostgresStore,
  type PostgresStoreOptions,
  type ServedPosition,
  type StoreChange,
  WriterLockLostError,
  type WriterProgress,
} from './postgresStore.ts'
export { schemaStatements, schemaVersion } from './schema.ts'
export { openSqliteStore, type SqliteStoreOptions } from './sqliteStore.ts'
export {
  type Checkpoint,
  type CommitResult,
  type IndexerStore,
  type Removal,
  type RewindResult,
  type StoreCommit,
  type StoredEvent,
  type StoredHistory,
  type StoredState,
  type StoreIdentity,
  StoreMismatchError,
} from './types.ts'
