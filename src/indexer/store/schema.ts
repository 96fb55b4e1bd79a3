import type { ActivityEvent } from '../../wire/index.ts'

/**
 * The store's tables, in SQL that SQLite and PostgreSQL both take. Block numbers are
 * BIGINT, hashes 0x-prefixed text as the node gave them, each event its wire JSON.
 * docs/indexer.md describes each column.
 *
 * Version 2 keeps an event as the JSON `/activity` serves (version 1 kept its fields in
 * five columns, which every start had to format back into that JSON: ~40 % of a
 * 50,000-event restart). Version 3 numbers every change: each event carries the `seq`
 * of the change that added it, and `indexer_removals` keeps the events a reorg took
 * away under the `seq` of that rewind, so `GET /activity/stream` resumes from a
 * number on any replica (docs/indexer.md "The change history"). An earlier store is
 * converted when opened (`upgradeEventsStatements`).
 */
export const schemaVersion = 3

/** `indexer_events`' columns (version 3), for the table and for the one an earlier store is converted into. */
const eventsColumns = `(
    block_number BIGINT NOT NULL,
    log_index INTEGER NOT NULL,
    block_hash TEXT NOT NULL,
    event TEXT NOT NULL,
    seq BIGINT NOT NULL,
    PRIMARY KEY (block_number, log_index)
  )`

export const schemaStatements = [
  // One row per key: identity (chain_id, addresses, deployed_at, schema_version) and
  // state (checkpoint_block, checkpoint_hash, truncated; change_seq, history_floor, history_id).
  `CREATE TABLE IF NOT EXISTS indexer_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  )`,
  // The indexed events, newest `INDEXER_RETENTION` kept: the position, the hash of the
  // block each came from (reorg evidence), the event as served and the change that added it.
  `CREATE TABLE IF NOT EXISTS indexer_events ${eventsColumns}`,
  // Hashes of recent range ends and heads (the newest reorg window of them).
  `CREATE TABLE IF NOT EXISTS indexer_block_hashes (
    block_number BIGINT PRIMARY KEY,
    hash TEXT NOT NULL
  )`,
  // Events a reorg removed: the rewind's change number, the number that had added each, the event as served.
  `CREATE TABLE IF NOT EXISTS indexer_removals (
    seq BIGINT NOT NULL,
    added_seq BIGINT NOT NULL,
    block_number BIGINT NOT NULL,
    log_index INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (seq, added_seq)
  )`,
] as const

/** Run after any conversion: the index over `seq` a read replica follows the writer by. */
export const indexStatements = ['CREATE INDEX IF NOT EXISTS indexer_events_seq ON indexer_events (seq)'] as const

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
 * Converts an earlier `indexer_events` table to version 3, in the caller's transaction:
 * the events numbered 1, 2, … in chain order (the change history starts there). From
 * version 1 (columns `transaction_hash`, `address`, `name`, `fields`), `quote` is the
 * dialect's JSON string quoting (SQLite `json_quote(x)`, PostgreSQL `to_json(x)::text`),
 * so each row's `event` is what `eventJson` gives for it; from version 2 the `event`
 * column is kept as it is.
 */
export function upgradeEventsStatements(from: 1 | 2, table: (name: string) => string, quote: (column: string) => string): string[] {
  const json =
    from === 2
      ? 'event'
      : `'{"name":' || ${quote('name')} || ',"address":' || ${quote('address')} || ',"blockNumber":"' || block_number || ` +
        `'","logIndex":' || log_index || ',"transactionHash":' || ${quote('transaction_hash')} || ',"fields":' || fields || '}'`
  return [
    `CREATE TABLE ${table('indexer_events_v3')} ${eventsColumns}`,
    `INSERT INTO ${table('indexer_events_v3')} (block_number, log_index, block_hash, event, seq)
      SELECT block_number, log_index, block_hash, ${json}, ROW_NUMBER() OVER (ORDER BY block_number, log_index) FROM ${table('indexer_events')} ORDER BY block_number, log_index`,
    `DROP TABLE ${table('indexer_events')}`,
    `ALTER TABLE ${table('indexer_events_v3')} RENAME TO indexer_events`,
  ]
}

/** The log line before a conversion: where, from which version, how much, and that it happens once. */
export const upgradeLine = (where: string, from: number, events: number) =>
  `indexer: converting ${where} from schema version ${from} to ${schemaVersion} (${events} events${from === 1 ? ', each kept as its JSON from now on' : ''}, numbered for the change history); this happens once`

/** A new history's id: 8 hex digits, so a cursor from another index (or a `:memory:` store before a restart) is told apart. */
export const newHistoryId = () => crypto.getRandomValues(new Uint32Array(1))[0]!.toString(16).padStart(8, '0')
