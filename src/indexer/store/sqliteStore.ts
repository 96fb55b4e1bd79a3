import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Hash } from 'viem'
import type { Logger } from '../../shared/index.ts'
import { eventJson, indexStatements, newHistoryId, schemaStatements, schemaVersion, upgradeEventsStatements, upgradeLine } from './schema.ts'
import {
  type Checkpoint,
  type IndexerStore,
  lazyEvents,
  type Removal,
  type StoreCommit,
  type StoredEvent,
  type StoredHistory,
  type StoredState,
  type StoreIdentity,
  StoreMismatchError,
} from './types.ts'

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

type EventValues = [number, number, string, string, number]

const eventValues = ({ event, blockHash }: StoredEvent, seq: number): EventValues => [Number(event.blockNumber), event.logIndex, blockHash, eventJson(event), seq]

/** An upsert of `rows` events (a row already stored at that position is overwritten). */
function insertEventsSql(rows: number): string {
  return `INSERT INTO indexer_events (block_number, log_index, block_hash, event, seq)
    VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, ?, ?)').join(', ')}
    ON CONFLICT (block_number, log_index) DO UPDATE SET block_hash = excluded.block_hash, event = excluded.event, seq = excluded.seq`
}

/** An event's position, its wire JSON and its change number, as stored. */
type EventText = [blockNumber: number, logIndex: number, json: string, seq: number]

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
  // Before the event statements are prepared: they name version 3's columns.
  checkIdentity()
  for (const statement of indexStatements) db.exec(statement)

  const insertEvent = db.query<unknown, EventValues>(insertEventsSql(1))
  const insertEvents = db.query<unknown, EventValues[number][]>(insertEventsSql(rowsPerInsert))
  const insertHash = db.query<unknown, [number, string]>(
    'INSERT INTO indexer_block_hashes (block_number, hash) VALUES (?, ?) ON CONFLICT (block_number) DO UPDATE SET hash = excluded.hash',
  )
  const newestEvents = db.query<Record<string, never>, [number]>(
    'SELECT block_number, log_index, event, seq FROM indexer_events ORDER BY block_number DESC, log_index DESC LIMIT ?',
  )
  // Every event, in the table's own order: the order they were written in, which is chain order
  // (a commit appends after its checkpoint, a rewind deletes the tail), checked when read.
  const allEvents = db.query<Record<string, never>, []>('SELECT block_number, log_index, event, seq FROM indexer_events')
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
  const eventsAbove = db.query<{ seq: number; event: string; block_number: number; log_index: number }, [number]>(
    'SELECT seq, event, block_number, log_index FROM indexer_events WHERE block_number > ? ORDER BY block_number, log_index',
  )
  const deleteEventsAbove = db.query<unknown, [number]>('DELETE FROM indexer_events WHERE block_number > ?')
  const deleteHashesAbove = db.query<unknown, [number]>('DELETE FROM indexer_block_hashes WHERE block_number > ?')
  const oldestSeq = db.query<{ seq: number | null }, []>('SELECT MIN(seq) AS seq FROM indexer_events')
  const insertRemoval = db.query<unknown, [number, number, number, number, string]>(
    'INSERT INTO indexer_removals (seq, added_seq, block_number, log_index, event) VALUES (?, ?, ?, ?, ?)',
  )
  const allRemovals = db.query<{ seq: number; added_seq: number; event: string }, []>('SELECT seq, added_seq, event FROM indexer_removals ORDER BY seq, added_seq')
  // The removal whose change number bounds the newest `retention` removed events kept.
  const removalsBound = db.query<{ seq: number }, [number]>('SELECT seq FROM indexer_removals ORDER BY seq DESC, added_seq DESC LIMIT 1 OFFSET ?')
  const pruneRemovals = db.query<unknown, [number]>('DELETE FROM indexer_removals WHERE seq <= ?')

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
        startHistory(0)
      })()
      return
    }
    if (version !== String(schemaVersion) && version !== '1' && version !== '2') {
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
    // Schema version 1 or 2: each event becomes its JSON (version 1) and gets its number, in one transaction.
    if (version === '1' || version === '2') {
      const from = Number(version) as 1 | 2
      const began = performance.now()
      const events = db.query<{ n: number }, []>('SELECT COUNT(*) AS n FROM indexer_events').get()?.n ?? 0
      options.logger?.info(upgradeLine(path, from, events))
      db.transaction(() => {
        for (const statement of upgradeEventsStatements(from, (name) => name, (column) => `json_quote(${column})`)) db.exec(statement)
        setMeta.run('schema_version', String(schemaVersion))
        startHistory(events)
      })()
      options.logger?.info(`indexer: ${path} converted to schema version ${schemaVersion} in ${Math.round(performance.now() - began)} ms`)
    }
  }

  /** A new change history: its id, and the events already stored numbered 1…`events`. */
  function startHistory(events: number) {
    setMeta.run('history_id', newHistoryId())
    setMeta.run('change_seq', String(events))
    setMeta.run('history_floor', '0')
    setMeta.run('removals_floor', '0')
  }

  const metaNumber = (key: string) => Number(getMeta.get(key)?.value ?? '0')

  function history(): StoredHistory {
    const removals: Removal[] = allRemovals.all().map((row) => ({ seq: row.seq, addedSeq: row.added_seq, event: JSON.parse(row.event) }))
    return {
      id: getMeta.get('history_id')?.value ?? '',
      lastSeq: metaNumber('change_seq'),
      floor: metaNumber('history_floor'),
      removalsFloor: metaNumber('removals_floor'),
      removals,
    }
  }

  /** Raises a floor to `seq` (never lowers it) and forgets the removals at or below it (no cursor that can resume needs them). */
  function raiseFloor(key: 'history_floor' | 'removals_floor', seq: number): number {
    const floor = Math.max(metaNumber(key), seq)
    setMeta.run(key, String(floor))
    pruneRemovals.run(floor)
    return floor
  }

  function checkpoint(): Checkpoint | undefined {
    const block = getMeta.get('checkpoint_block')?.value
    const hash = getMeta.get('checkpoint_hash')?.value
    return block === undefined || hash === undefined ? undefined : { block: BigInt(block), hash: hash as Hash }
  }

  const commit = db.transaction((batch: StoreCommit) => {
    const { events } = batch
    const first = metaNumber('change_seq') + 1
    let at = 0
    for (; at + rowsPerInsert <= events.length; at += rowsPerInsert) {
      const values: EventValues[number][] = []
      for (let i = at; i < at + rowsPerInsert; i++) values.push(...eventValues(events[i]!, first + i))
      insertEvents.run(...values)
    }
    for (; at < events.length; at++) insertEvent.run(...eventValues(events[at]!, first + at))
    const lastSeq = first - 1 + events.length
    if (events.length > 0) setMeta.run('change_seq', String(lastSeq))
    count += batch.events.length
    for (const [block, hash] of batch.hashes) insertHash.run(Number(block), hash)
    const top = Number(batch.checkpoint.block)
    insertHash.run(top, batch.checkpoint.hash)
    pruneHashes.run(top - hashWindow)
    setMeta.run('checkpoint_block', batch.checkpoint.block.toString())
    setMeta.run('checkpoint_hash', batch.checkpoint.hash)
    let truncated = batch.truncated
    let floor = metaNumber('history_floor')
    if (count > retention) {
      const oldestKept = firstKept.get(count - retention)
      if (oldestKept) deleteOlder.run(oldestKept.block_number, oldestKept.block_number, oldestKept.log_index)
      count = retention
      truncated = true
      // What retention dropped leaves the history: a cursor below the oldest kept event cannot resume exactly.
      const oldest = oldestSeq.get()?.seq
      if (oldest !== null && oldest !== undefined) floor = raiseFloor('history_floor', oldest - 1)
    }
    if (truncated) setMeta.run('truncated', 'true')
    return { lastSeq, floor }
  })

  const rewind = db.transaction((to: Checkpoint | undefined) => {
    const above = to === undefined ? -1 : Number(to.block)
    const rows = eventsAbove.all(above)
    let seq = metaNumber('change_seq')
    let removalsFloor = metaNumber('removals_floor')
    const removed: Removal[] = []
    if (rows.length > 0) {
      seq++
      setMeta.run('change_seq', String(seq))
      for (const row of rows) {
        insertRemoval.run(seq, row.seq, row.block_number, row.log_index, row.event)
        removed.push({ seq, addedSeq: row.seq, event: JSON.parse(row.event) })
      }
      // At most `retention` removed events are kept; older removals raise the removals' floor.
      const bound = removalsBound.get(retention)
      if (bound) removalsFloor = raiseFloor('removals_floor', bound.seq)
    }
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
    return { seq, removed, removalsFloor }
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
      const seqs: number[] = new Array(rows.length)
      for (let i = 0; i < rows.length; i++) {
        texts[i] = rows[i]![2]
        seqs[i] = rows[i]![3]
      }
      const eventsJson = `[${texts.join(',')}]`
      return lazyEvents({ checkpoint: checkpoint(), truncated: getMeta.get('truncated')?.value === 'true', eventCount: rows.length, eventsJson, seqs, history: history() })
    },
    async commit(batch: StoreCommit) {
      return commit(batch)
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
