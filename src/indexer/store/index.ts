// The indexer's durable state behind a small async interface; SQLite today.
export { defaultStorePath } from './location.ts'
export { schemaStatements, schemaVersion } from './schema.ts'
export { openSqliteStore, type SqliteStoreOptions } from './sqliteStore.ts'
export { type Checkpoint, type IndexerStore, type StoreCommit, type StoredEvent, type StoredState, type StoreIdentity, StoreMismatchError } from './types.ts'
