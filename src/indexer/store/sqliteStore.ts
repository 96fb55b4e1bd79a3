import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Hash } from 'viem'
import type { Logger } from '../../shared/index.ts'
import { eventJson, schemaStatements, schemaVersion, upgradeEventsStatements, upgradeLine } from './schema.ts'
import { type Checkpoint, type IndexerStore, lazyEvents, type StoreCommit, type StoredEvent, type StoredState, type StoreIdentity, StoreMismatchError } from './types.ts'

export type SqliteStoreOptions = {
  /** A file path (its directory is created) or `:memory:`. */
  path: string
  identity: StoreIdentity
  /** Most events kept; older ones are deleted at each commit. */
  retention: number
  /** How many of the newest block hashes `indexer_block_hashes` keeps. */
  hashWindow: number
  /** Told when a version 1 file is converted (the one step of opening that can take long). */
  logger?: Pick<Logger, 'info'>
}

/**
 * Events per INSERT statement: a range of thousands of events (a backfill) costs a
 * statement per 64 instead of one each, a quarter less time (the same rows, fewer
 * calls into SQLite). 256 parameters, far under SQLite's 32,766.
 */
const rowsPerInsert = 64

type EventValues = [number, number, string, string]

const eventValues = ({ event, blockHash }: StoredEvent): EventValues => [Number(event.blockNumber), event.logIndex, blockHash, eventJson(event)]

/** An upsert of `rows` events (a row already stored at that position is overwritten). */
function insertEventsSql(rows: number): string {
  return `INSERT INTO indexer_events (block_number, log_index, block_hash, event)
    VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, ?)').join(', ')}
    ON CONFLICT (block_number, log_index) DO UPDATE SET block_hash = excluded.block_hash, event = excluded.event`
}

/** An event's position and its wire JSON, as stored. */
type EventText = [blockNumber: number, logIndex: number, json: string]

/** Rows sorted by (block, log index): as they are when already in that order, which is the rule. */
function inChainOrder(rows: EventText[]): EventText[] {
  const before = (a: EventText, b: EventText) => a[0] - b[0] || a[1] - b[1]
  for (let i = 1; i < rows.length; i++) if (before(rows[i - 1]!, rows[i]!) > 0) return rows.sort(before)
  return rows
}
type HashRow = { block_number: number; hash: string }

/**
 * The indexer store in SQLite (`bun:sqlite`, WAL, one writer: this process). The
 * SQL itself is portable (see schema.ts); only the pragmas are SQLite's.
 *
 * @example
 * const store = openSqliteStore({ path: ':memory:', identity, retention: 10_000, hashWindow: 128 })
 * const { checkpoint, events } = await store.load(10_000)
 */
export function openSqliteStore(options: SqliteStoreOptions): IndexerStore {
  const { path, retention, hashWindow } = options
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const db = new Database(path, { create: true, strict: true })
  if (path !== ':memory:') {
    db.exec('PRAGMA journal_mode = WAL')
    db.exec('PRAGMA synchronous = NORMAL')
  }
  for (const statement of schemaStatements) db.exec(statement)

  const getMeta = db.query<{ value: string }, [string]>('SELECT value FROM indexer_meta WHERE key = ?')
  const setMeta = db.query<unknown, [string, string]>(
    'INSERT INTO indexer_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  )
  const deleteMeta = db.query<unknown, [string]>('DELETE FROM indexer_meta WHERE key = ?')
  // Before the event statements are prepared: they name version 2's columns.
  checkIdentity()

  const insertEvent = db.query<unknown, EventValues>(insertEventsSql(1))
  const insertEvents = db.query<unknown, EventValues[number][]>(insertEventsSql(rowsPerInsert))
  const insertHash = db.query<unknown, [number, string]>(
    'INSERT INTO indexer_block_hashes (block_number, hash) VALUES (?, ?) ON CONFLICT (block_number) DO UPDATE SET hash = excluded.hash',
  )
  const newestEvents = db.query<Record<string, never>, [number]>('SELECT block_number, log_index, event FROM indexer_events ORDER BY block_number DESC, log_index DESC LIMIT ?')
  // Every event, in the table's own order: the order they were written in, which is chain order
  // (a commit appends after its checkpoint, a rewind deletes the tail), checked when read.
  const allEvents = db.query<Record<string, never>, []>('SELECT block_number, log_index, event FROM indexer_events')
  const countEvents = db.query<{ n: number }, []>('SELECT COUNT(*) AS n FROM indexer_events')
  // The first event to keep, counted from the oldest: the offset is the few events to drop, not the retention.
  const firstKept = db.query<{ block_number: number; log_index: number }, [number]>(
    'SELECT block_number, log_index FROM indexer_events ORDER BY block_number, log_index LIMIT 1 OFFSET ?',
  )
  const deleteOlder = db.query<unknown, [number, number, number]>(
    'DELETE FROM indexer_events WHERE block_number < ? OR (block_number = ? AND log_index < ?)',
  )
  const pruneHashes = db.query<unknown, [number]>('DELETE FROM indexer_block_hashes WHERE block_number <= ?')
  const knownHashes = db.query<HashRow, [number, number]>(
    `SELECT block_number, hash FROM indexer_block_hashes WHERE block_number <= ?
     UNION SELECT DISTINCT block_number, block_hash FROM indexer_events WHERE block_number <= ?
     ORDER BY block_number`,
  )
  const deleteEventsAbove = db.query<unknown, [number]>('DELETE FROM indexer_events WHERE block_number > ?')
  const deleteHashesAbove = db.query<unknown, [number]>('DELETE FROM indexer_block_hashes WHERE block_number > ?')

  let count = countEvents.get()?.n ?? 0

  function checkIdentity() {
    const identity = {
      chain_id: String(options.identity.chainId),
      addresses: options.identity.addresses.map((address) => address.toLowerCase()).join(','),
      deployed_at: options.identity.deployedAt.toString(),
    }
    const version = getMeta.get('schema_version')?.value
    if (version === undefined) {
      db.transaction(() => {
        setMeta.run('schema_version', String(schemaVersion))
        for (const [key, value] of Object.entries(identity)) setMeta.run(key, value)
      })()
      return
    }
    if (version !== String(schemaVersion) && version !== '1') {
      db.close()
      throw new StoreMismatchError(`INDEXER_DB ${path} has schema version ${version}, this build reads ${schemaVersion}: point INDEXER_DB at a new file`)
    }
    for (const [key, value] of Object.entries(identity)) {
      const stored = getMeta.get(key)?.value
      if (stored !== value) {
        db.close()
        throw new StoreMismatchError(
          `INDEXER_DB ${path} holds another index (${key} ${stored ?? 'missing'}, not ${value}): point INDEXER_DB at another file or delete this one`,
        )
      }
    }
    // Schema version 1: each event's columns become its JSON, in one transaction.
    if (version === '1') {
      const began = performance.now()
      options.logger?.info(upgradeLine(path, db.query<{ n: number }, []>('SELECT COUNT(*) AS n FROM indexer_events').get()?.n ?? 0))
      db.transaction(() => {
        for (const statement of upgradeEventsStatements((name) => name, (column) => `json_quote(${column})`)) db.exec(statement)
        setMeta.run('schema_version', String(schemaVersion))
      })()
      options.logger?.info(`indexer: ${path} converted to schema version ${schemaVersion} in ${Math.round(performance.now() - began)} ms`)
    }
  }

  function checkpoint(): Checkpoint | undefined {
    const block = getMeta.get('checkpoint_block')?.value
    const hash = getMeta.get('checkpoint_hash')?.value
    return block === undefined || hash === undefined ? undefined : { block: BigInt(block), hash: hash as Hash }
  }

  const commit = db.transaction((batch: StoreCommit) => {
    const { events } = batch
    let at = 0
    for (; at + rowsPerInsert <= events.length; at += rowsPerInsert) {
      const values: EventValues[number][] = []
      for (let i = at; i < at + rowsPerInsert; i++) values.push(...eventValues(events[i]!))
      insertEvents.run(...values)
    }
    for (; at < events.length; at++) insertEvent.run(...eventValues(events[at]!))
    count += batch.events.length
    for (const [block, hash] of batch.hashes) insertHash.run(Number(block), hash)
    const top = Number(batch.checkpoint.block)
    insertHash.run(top, batch.checkpoint.hash)
    pruneHashes.run(top - hashWindow)
    setMeta.run('checkpoint_block', batch.checkpoint.block.toString())
    setMeta.run('checkpoint_hash', batch.checkpoint.hash)
    let truncated = batch.truncated
    if (count > retention) {
      const oldestKept = firstKept.get(count - retention)
      if (oldestKept) deleteOlder.run(oldestKept.block_number, oldestKept.block_number, oldestKept.log_index)
      count = retention
      truncated = true
    }
    if (truncated) setMeta.run('truncated', 'true')
  })

  const rewind = db.transaction((to: Checkpoint | undefined) => {
    const above = to === undefined ? -1 : Number(to.block)
    const dropped = deleteEventsAbove.run(above).changes
    deleteHashesAbove.run(above)
    if (to === undefined) {
      deleteMeta.run('checkpoint_block')
      deleteMeta.run('checkpoint_hash')
    } else {
      setMeta.run('checkpoint_block', to.block.toString())
      setMeta.run('checkpoint_hash', to.hash)
    }
    count -= dropped
    return dropped
  })

  return {
    location: path,
    async load(limit: number): Promise<StoredState> {
      // The store holds at most `retention` events, so a restart reads them all: in table
      // order (a scan, ~25 % faster than walking the key's index for 50,000), else the newest.
      const all = count <= limit ? inChainOrder(allEvents.values() as EventText[]) : undefined
      const rows = all ? all.slice(Math.max(0, all.length - limit)) : (newestEvents.values(limit) as EventText[]).reverse()
      // The events' JSON, oldest first, as stored; the objects are parsed from it when first needed.
      const texts: string[] = new Array(rows.length)
      for (let i = 0; i < rows.length; i++) texts[i] = rows[i]![2]
      const eventsJson = `[${texts.join(',')}]`
      return lazyEvents({ checkpoint: checkpoint(), truncated: getMeta.get('truncated')?.value === 'true', eventCount: rows.length, eventsJson })
    },
    async commit(batch: StoreCommit) {
      commit(batch)
    },
    async knownHashes(block: bigint) {
      return knownHashes.all(Number(block), Number(block)).map((row) => [BigInt(row.block_number), row.hash as Hash] as const)
    },
    async rewind(to: Checkpoint | undefined) {
      return rewind(to)
    },
    async close() {
      db.close()
    },
  }
}
