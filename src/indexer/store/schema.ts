/**
 * The store's tables, in SQL that SQLite and PostgreSQL both take (issue 17 adds a
 * PostgreSQL store over the same tables). Block numbers are BIGINT, hashes and
 * addresses 0x-prefixed lower-case-insensitive text as the node gave them, event
 * fields a JSON object in text. docs/indexer.md describes each column.
 */
export const schemaVersion = 1

export const schemaStatements = [
  // One row per key: identity (chain_id, addresses, deployed_at, schema_version) and
  // state (checkpoint_block, checkpoint_hash, truncated).
  `CREATE TABLE IF NOT EXISTS indexer_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  )`,
  // The indexed events, newest `INDEXER_RETENTION` kept, with the hash of the block each came from.
  `CREATE TABLE IF NOT EXISTS indexer_events (
    block_number BIGINT NOT NULL,
    log_index INTEGER NOT NULL,
    block_hash TEXT NOT NULL,
    transaction_hash TEXT NOT NULL,
    address TEXT NOT NULL,
    name TEXT NOT NULL,
    fields TEXT NOT NULL,
    PRIMARY KEY (block_number, log_index)
  )`,
  // Hashes of recent range ends and heads (the newest reorg window of them).
  `CREATE TABLE IF NOT EXISTS indexer_block_hashes (
    block_number BIGINT PRIMARY KEY,
    hash TEXT NOT NULL
  )`,
] as const
