import type { ActivityEvent } from '../../wire/index.ts'

/**
 * The store's tables, in SQL that SQLite and PostgreSQL both take (the SQLite and the
 * PostgreSQL store use the same tables). Block numbers are BIGINT, hashes 0x-prefixed
 * text as the node gave them, each event its wire JSON. docs/indexer.md describes each
 * column.
 *
 * Version 2 keeps an event as the JSON `/activity` serves (version 1 kept its fields in
 * five columns, which every start had to format back into that JSON: ~40 % of a
 * 50,000-event restart). A version 1 store is converted when opened
 * (`upgradeEventsStatements`).
 */
export const schemaVersion = 2

/** `indexer_events`' columns (version 2), for the table and for the one a version 1 store is converted into. */
const eventsColumns = `(
    block_number BIGINT NOT NULL,
    log_index INTEGER NOT NULL,
    block_hash TEXT NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (block_number, log_index)
  )`

export const schemaStatements = [
  // One row per key: identity (chain_id, addresses, deployed_at, schema_version) and
  // state (checkpoint_block, checkpoint_hash, truncated).
  `CREATE TABLE IF NOT EXISTS indexer_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  )`,
  // The indexed events, newest `INDEXER_RETENTION` kept: the position, the hash of the
  // block each came from (reorg evidence) and the event as served.
  `CREATE TABLE IF NOT EXISTS indexer_events ${eventsColumns}`,
  // Hashes of recent range ends and heads (the newest reorg window of them).
  `CREATE TABLE IF NOT EXISTS indexer_block_hashes (
    block_number BIGINT PRIMARY KEY,
    hash TEXT NOT NULL
  )`,
] as const

/**
 * The `event` column's text: byte for byte `JSON.stringify` of the wire event, in the
 * wire's key order whatever the object's own order is.
 */
export function eventJson(event: ActivityEvent): string {
  return (
    `{"name":${JSON.stringify(event.name)},"address":${JSON.stringify(event.address)},"blockNumber":${JSON.stringify(event.blockNumber)},` +
    `"logIndex":${event.logIndex},"transactionHash":${JSON.stringify(event.transactionHash)},"fields":${JSON.stringify(event.fields)}}`
  )
}

/**
 * Converts a version 1 `indexer_events` table (columns `transaction_hash`, `address`,
 * `name`, `fields`) to version 2, in the caller's transaction: `quote` is the
 * dialect's JSON string quoting (SQLite `json_quote(x)`, PostgreSQL `to_json(x)::text`),
 * so each row's `event` is what `eventJson` gives for it.
 */
export function upgradeEventsStatements(table: (name: string) => string, quote: (column: string) => string): string[] {
  const json =
    `'{"name":' || ${quote('name')} || ',"address":' || ${quote('address')} || ',"blockNumber":"' || block_number || ` +
    `'","logIndex":' || log_index || ',"transactionHash":' || ${quote('transaction_hash')} || ',"fields":' || fields || '}'`
  return [
    `CREATE TABLE ${table('indexer_events_v2')} ${eventsColumns}`,
    `INSERT INTO ${table('indexer_events_v2')} (block_number, log_index, block_hash, event)
      SELECT block_number, log_index, block_hash, ${json} FROM ${table('indexer_events')} ORDER BY block_number, log_index`,
    `DROP TABLE ${table('indexer_events')}`,
    `ALTER TABLE ${table('indexer_events_v2')} RENAME TO indexer_events`,
  ]
}

/** The log line before a conversion: where, how much, and that it happens once. */
export const upgradeLine = (where: string, events: number) =>
  `indexer: converting ${where} from schema version 1 to ${schemaVersion} (${events} events, each kept as its JSON from now on); this happens once`
