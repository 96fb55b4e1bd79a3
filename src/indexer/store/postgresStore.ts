import { SQL } from 'bun'
import type { Hash } from 'viem'
import { OrderRelayError } from '../../errors/index.ts'
import { ConfigError, type Logger, redactUrl, redactUrls } from '../../shared/index.ts'
import type { ActivityEvent } from '../../wire/index.ts'
import { indexDigest } from './location.ts'
import { eventJson, indexStatements, newHistoryId, schemaStatements, schemaVersion, upgradeEventsStatements, upgradeLine } from './schema.ts'
import {
  type Checkpoint,
  type CommitResult,
  type IndexerStore,
  lazyEvents,
  type Removal,
  type RewindResult,
  type StoreCommit,
  type StoredHistory,
  type StoredState,
  type StoreIdentity,
  StoreMismatchError,
} from './types.ts'

export type PostgresStoreOptions = {
  /** `postgres://user:password@host:port/database` (INDEXER_DATABASE_URL). */
  url: string
  identity: StoreIdentity
  /** Most events kept; older ones are deleted at each commit. */
  retention: number
  /** How many of the newest block hashes `indexer_block_hashes` keeps. */
  hashWindow: number
  /** Told when an earlier schema is converted (the one step of opening that can take long). */
  logger?: Pick<Logger, 'info'>
  /**
   * A read-only replica (INDEXER_ROLE=reader): `open` only reads and checks the
   * schema a writer created (no DDL, no conversion), and nothing is ever written.
   */
  readOnly?: boolean
}

/** The writer lock was lost (its connection closed): this process must stop writing. */
export class WriterLockLostError extends OrderRelayError<'WRITER_LOCK_LOST'> {
  override name = 'WriterLockLostError'
  constructor(message: string) {
    super('WRITER_LOCK_LOST', message)
  }
}

/** Who holds the writer lock and how far the stored index is (what a standby watches to judge a hung writer). */
export type WriterProgress = {
  /** The PostgreSQL backend pid of the writer's session; undefined: nobody holds the lock. */
  pid: number | undefined
  checkpoint: Checkpoint | undefined
  lastSeq: number
}

/** Where a read replica stands: the history it follows, its last change and its checkpoint. */
export type ServedPosition = { historyId: string; seq: number; checkpoint: Checkpoint | undefined }

/**
 * The indexer store in PostgreSQL (`Bun.SQL`): the SQLite store's tables in one
 * schema per index (`indexer_<chainId>_<digest>`, created if missing), so another
 * chain or address set never shares rows. Many processes open it; one of them is the
 * writer, holding `pg_try_advisory_lock(<key of this index>)` on a connection kept for
 * its life. `commit` and `rewind` run on that connection and check the lock inside
 * their transaction, so a process that lost it can never write; each ends with a
 * `NOTIFY` on the schema's channel, delivered at commit, by which read replicas learn
 * of it (`listen`).
 *
 * @example
 * const store = createPostgresStore({ url, identity, retention: 10_000, hashWindow: 128 })
 * await store.open()
 * if (await store.tryLead()) await store.commit(batch)
 */
export function createPostgresStore(options: PostgresStoreOptions) {
  const { url, identity, retention, hashWindow } = options
  const readOnly = options.readOnly === true
  const digest = indexDigest(identity.addresses, identity.deployedAt)
  const schema = `indexer_${identity.chainId}_${digest.slice(0, 12)}`
  /** The writer lock's key: 60 bits of the digest with the chain id, a positive BIGINT. */
  const lockKey = BigInt(`0x${indexDigest([String(identity.chainId), ...identity.addresses], identity.deployedAt).slice(0, 15)}`).toString()
  // pg_locks shows a BIGINT advisory key as two 32-bit halves.
  const lockHigh = (BigInt(lockKey) >> 32n).toString()
  const lockLow = (BigInt(lockKey) & 0xffffffffn).toString()
  const table = (name: 'meta' | 'events' | 'block_hashes' | 'removals') => `${schema}.indexer_${name}`
  const shown = redactUrl(url)
  // No idle timeout: the writer's reserved connection holds the lock and may be quiet for a long INDEXER_POLL_MS.
  const sql = new SQL(url, { max: 4, connectionTimeout: 5 })
  /** The writer's connection, holding the lock; undefined while not the writer. */
  let lead: Awaited<ReturnType<typeof sql.reserve>> | undefined
  let count = 0
  let subscription: SQL.ListenSubscription | undefined
  /** The writer's connection runs one thing at a time: a lock check never lands inside a commit's transaction. */
  let leadQueue: Promise<unknown> = Promise.resolve()
  function onLead<T>(work: () => Promise<T>): Promise<T> {
    const run = leadQueue.then(work, work)
    leadQueue = run.catch(() => {})
    return run
  }

  const meta = (key: string) => `SELECT value FROM ${table('meta')} WHERE key = '${key}'`
  const setMeta = `INSERT INTO ${table('meta')} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`
  type Query = (text: string, values?: unknown[]) => Promise<Record<string, unknown>[]>

  async function readCheckpoint(query: Query): Promise<Checkpoint | undefined> {
    const [block] = await query(meta('checkpoint_block'))
    const [hash] = await query(meta('checkpoint_hash'))
    return block === undefined || hash === undefined ? undefined : { block: BigInt(String(block.value)), hash: hash.value as Hash }
  }

  async function metaNumber(query: Query, key: string): Promise<number> {
    const [row] = await query(meta(key))
    return Number(row?.value ?? '0')
  }

  async function readHistory(query: Query, withRemovals: boolean): Promise<StoredHistory> {
    const [id] = await query(meta('history_id'))
    const removals: Removal[] = []
    if (withRemovals) {
      const rows = await query(`SELECT seq, added_seq, event FROM ${table('removals')} ORDER BY seq, added_seq`)
      for (const row of rows) removals.push({ seq: Number(row.seq), addedSeq: Number(row.added_seq), event: JSON.parse(String(row.event)) as ActivityEvent })
    }
    return {
      id: String(id?.value ?? ''),
      lastSeq: await metaNumber(query, 'change_seq'),
      floor: await metaNumber(query, 'history_floor'),
      removalsFloor: await metaNumber(query, 'removals_floor'),
      removals,
    }
  }

  /** Raises a floor to `seq` (never lowers it) and forgets the removals at or below it (no cursor that can resume needs them). */
  async function raiseFloor(tx: SQL, key: 'history_floor' | 'removals_floor', seq: number): Promise<number> {
    const floor = Math.max(await metaNumber(txQuery(tx), key), seq)
    await tx.unsafe(setMeta, [key, String(floor)])
    await tx.unsafe(`DELETE FROM ${table('removals')} WHERE seq <= $1`, [String(floor)])
    return floor
  }

  const txQuery =
    (tx: SQL): Query =>
    (text, values) =>
      tx.unsafe(text, values)

  /** Runs `write` in one transaction on the writer's connection, after checking the lock is still ours; tells listeners at commit. */
  async function asWriter<T>(write: (tx: SQL) => Promise<T>): Promise<T> {
    return onLead(() => {
      if (!lead) throw new WriterLockLostError(`not the writer of ${schema}`)
      return lead.begin(async (tx) => {
        // Advisory locks are re-entrant per session: this holds only on the session holding the writer lock.
        const [row] = await tx.unsafe(`SELECT pg_try_advisory_xact_lock(${lockKey}) AS ok`)
        if (!row?.ok) throw new WriterLockLostError(`the writer lock of ${schema} is held by another process`)
        const result = await write(tx)
        // Delivered when the transaction commits, never for one rolled back.
        await tx.unsafe('SELECT pg_notify($1, $2)', [schema, String(await metaNumber(txQuery(tx), 'change_seq'))])
        return result
      }) as Promise<T>
    })
  }

  /** Creates the schema and tables if missing (serialized between processes starting together) and converts an earlier schema. */
  async function create(): Promise<void> {
    await sql.begin(async (tx) => {
      // Serializes first-time creation between processes starting together (not the writer lock's key).
      await tx.unsafe(`SELECT pg_advisory_xact_lock(${BigInt(lockKey) - 1n})`)
      await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
      const qualify = (statement: string) => statement.replace(/\bindexer_(meta|events|block_hashes|removals)\b/, (name) => `${schema}.${name}`)
      for (const statement of schemaStatements) await tx.unsafe(qualify(statement))
      // An index at schema version 1 or 2 is checked as it is, then converted.
      await tx.unsafe(`INSERT INTO ${table('meta')} (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO NOTHING`, [String(schemaVersion)])
      const [version] = await tx.unsafe(meta('schema_version'))
      const from = version?.value === '1' || version?.value === '2' ? (Number(version.value) as 1 | 2) : undefined
      await checkIdentity(txQuery(tx), from === undefined ? String(schemaVersion) : String(from), async (key, value) => {
        await tx.unsafe(`INSERT INTO ${table('meta')} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, [key, value])
      })
      if (from !== undefined) {
        const began = performance.now()
        const [counted] = await tx.unsafe(`SELECT COUNT(*) AS n FROM ${table('events')}`)
        const events = Number(counted?.n ?? 0)
        options.logger?.info(upgradeLine(`PostgreSQL schema ${schema}`, from, events))
        for (const statement of upgradeEventsStatements(from, (name) => `${schema}.${name}`, (column) => `to_json(${column})::text`)) await tx.unsafe(statement)
        await tx.unsafe(setMeta, ['schema_version', String(schemaVersion)])
        await tx.unsafe(setMeta, ['history_id', newHistoryId()])
        await tx.unsafe(setMeta, ['change_seq', String(events)])
        await tx.unsafe(setMeta, ['history_floor', '0'])
        await tx.unsafe(setMeta, ['removals_floor', '0'])
        options.logger?.info(`indexer: PostgreSQL schema ${schema} converted to schema version ${schemaVersion} in ${Math.round(performance.now() - began)} ms`)
      } else {
        // A new history (a store just created); kept as it is when already there.
        for (const [key, value] of [['history_id', newHistoryId()], ['change_seq', '0'], ['history_floor', '0'], ['removals_floor', '0']]) {
          await tx.unsafe(`INSERT INTO ${table('meta')} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, [key, value])
        }
      }
      for (const statement of indexStatements) await tx.unsafe(qualify(statement))
    })
  }

  /** Checks the schema holds this index (`record` stores a missing key first, for a writer creating it). */
  async function checkIdentity(query: Query, version: string, record?: (key: string, value: string) => Promise<void>): Promise<void> {
    const expected: Record<string, string> = {
      schema_version: version,
      chain_id: String(identity.chainId),
      addresses: identity.addresses.map((address) => address.toLowerCase()).join(','),
      deployed_at: identity.deployedAt.toString(),
    }
    for (const [key, value] of Object.entries(expected)) {
      await record?.(key, value)
      const [row] = await query(meta(key))
      if (row?.value === value) continue
      if (key === 'schema_version' && record === undefined) {
        throw new StoreMismatchError(
          `INDEXER_DATABASE_URL ${shown} schema ${schema} has schema version ${row?.value ?? 'none'}, this build reads ${schemaVersion}: a writer of this build (INDEXER_ROLE unset) converts it; a reader never writes`,
        )
      }
      throw new StoreMismatchError(`INDEXER_DATABASE_URL ${shown} schema ${schema} holds another index (${key} ${row?.value ?? 'missing'}, not ${value}): drop that schema or use another database`)
    }
  }

  /** A reader's open: the schema must exist and hold this index at this build's version; nothing is written. */
  async function check(): Promise<void> {
    const [found] = await sql.unsafe('SELECT to_regclass($1) AS name', [`${schema}.indexer_meta`])
    if (!found?.name) {
      throw new ConfigError(
        `INDEXER_DATABASE_URL ${shown}: schema ${schema} does not exist yet: start a writer first (an indexer with INDEXER_ROLE unset creates it); INDEXER_ROLE=reader never creates or changes anything`,
      )
    }
    await checkIdentity((text, values) => sql.unsafe(text, values), String(schemaVersion))
  }

  const store = {
    location: `PostgreSQL ${shown} schema ${schema}`,
    schema,
    lockKey,
    readOnly,
    /**
     * Connects and checks the schema holds this index; a writer-capable process also
     * creates the schema and tables if missing and converts a version 1 or 2 schema. A clear
     * ConfigError when PostgreSQL cannot be reached.
     */
    async open(): Promise<void> {
      try {
        if (readOnly) await check()
        else await create()
      } catch (error) {
        if (error instanceof ConfigError) throw error
        await sql.close().catch(() => {})
        throw new ConfigError(`INDEXER_DATABASE_URL ${shown}: cannot open the index in PostgreSQL (${describe(error)}): check that the server runs, the URL and its credentials`)
      }
    },
    /** Whether this process holds the writer lock (on its own connection). */
    get leading() {
      return lead !== undefined
    },
    /**
     * Tries to become the writer: `pg_try_advisory_lock` on a connection reserved for
     * it. True while held; a lost connection (checked here) gives the lock up.
     */
    tryLead(): Promise<boolean> {
      if (readOnly) return Promise.resolve(false)
      return onLead(takeLead)
    },
    /**
     * Calls `onNotify` whenever a writer commits (PostgreSQL `LISTEN` on the schema's
     * channel, on a connection of its own that Bun.SQL reconnects and listens on again
     * after an outage).
     */
    async listen(onNotify: () => void): Promise<void> {
      subscription ??= await sql.listen(schema, onNotify)
    },

    /** The stored checkpoint (what read replicas poll to see the writer move). */
    async checkpoint(): Promise<Checkpoint | undefined> {
      return readCheckpoint((text) => sql.unsafe(text))
    },
    /** Who holds the writer lock (its backend pid), and the stored checkpoint and last change. */
    async writerProgress(): Promise<WriterProgress> {
      return sql.begin('isolation level repeatable read read only', async (tx) => {
        const [holder] = await tx.unsafe(
          `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid::bigint = $1 AND objid::bigint = $2 AND objsubid = 1`,
          [lockHigh, lockLow],
        )
        const query = txQuery(tx)
        return { pid: holder?.pid === undefined ? undefined : Number(holder.pid), checkpoint: await readCheckpoint(query), lastSeq: await metaNumber(query, 'change_seq') }
      }) as Promise<WriterProgress>
    },
    /**
     * Ends the PostgreSQL session `pid` (a hung writer's): its open transaction rolls
     * back and its writer lock is released, so nothing it sends later can commit.
     * Needs the same PostgreSQL role as that session, or pg_signal_backend.
     */
    async endSession(pid: number): Promise<boolean> {
      const [row] = await sql.unsafe('SELECT pg_terminate_backend($1) AS ok', [pid])
      return row?.ok === true
    },
    async load(limit: number): Promise<StoredState> {
      // One consistent view: the checkpoint, the events and the history of the same commit.
      return sql.begin('isolation level repeatable read read only', async (tx) => {
        const rows: EventRow[] = await tx.unsafe(
          `SELECT event, seq FROM ${table('events')}
           ORDER BY block_number DESC, log_index DESC LIMIT $1`,
          [limit],
        )
        rows.reverse()
        const query = txQuery(tx)
        const [truncated] = await tx.unsafe(meta('truncated'))
        return lazyEvents({
          checkpoint: await readCheckpoint(query),
          truncated: truncated?.value === 'true',
          eventCount: rows.length,
          eventsJson: eventsText(rows),
          seqs: rows.map((row) => Number(row.seq)),
          history: await readHistory(query, true),
        })
      }) as Promise<StoredState>
    },
    /**
     * What changed since `served` (where a read replica stands), in one consistent
     * read: nothing; the changes after its number (the events added, in chain order,
     * and the removals), when at most `limit` events came and the history still reaches
     * back to it; or `moved` (another history, too much, or older than the history
     * keeps): load everything again.
     */
    async changesSince(served: ServedPosition | undefined, limit: number): Promise<StoreChange> {
      return sql.begin('isolation level repeatable read read only', async (tx) => {
        const query = txQuery(tx)
        const checkpoint = await readCheckpoint(query)
        const history = await readHistory(query, false)
        if (served === undefined) return { kind: checkpoint === undefined && history.lastSeq === 0 ? 'same' : 'moved' }
        if (served.historyId !== history.id || served.seq > history.lastSeq || served.seq < history.floor || served.seq < history.removalsFloor) return { kind: 'moved' }
        if (served.seq === history.lastSeq && served.checkpoint?.block === checkpoint?.block && served.checkpoint?.hash === checkpoint?.hash) return { kind: 'same' }
        const rows: EventRow[] = await tx.unsafe(`SELECT event, seq FROM ${table('events')} WHERE seq > $1 ORDER BY seq LIMIT $2`, [String(served.seq), limit + 1])
        if (rows.length > limit) return { kind: 'moved' }
        const removals: Removal[] = []
        for (const row of await tx.unsafe(`SELECT seq, added_seq, event FROM ${table('removals')} WHERE seq > $1 ORDER BY seq, added_seq`, [String(served.seq)])) {
          removals.push({ seq: Number(row.seq), addedSeq: Number(row.added_seq), event: JSON.parse(String(row.event)) as ActivityEvent })
        }
        const [truncated] = await tx.unsafe(meta('truncated'))
        return {
          kind: 'after',
          checkpoint,
          lastSeq: history.lastSeq,
          floor: history.floor,
          removalsFloor: history.removalsFloor,
          events: JSON.parse(eventsText(rows)) as ActivityEvent[],
          seqs: rows.map((row) => Number(row.seq)),
          removals,
          truncated: truncated?.value === 'true',
        }
      }) as Promise<StoreChange>
    },
    async commit(batch: StoreCommit): Promise<CommitResult> {
      const done = await asWriter(async (tx) => {
        const query = txQuery(tx)
        const first = (await metaNumber(query, 'change_seq')) + 1
        if (batch.events.length > 0) {
          const rows = batch.events.map(({ event, blockHash }, i) => ({
            block_number: event.blockNumber,
            log_index: event.logIndex,
            block_hash: blockHash,
            event: eventJson(event),
            seq: first + i,
          }))
          await tx.unsafe(
            `INSERT INTO ${table('events')} (block_number, log_index, block_hash, event, seq)
             SELECT * FROM json_to_recordset(($1::text)::json) AS r(block_number BIGINT, log_index INTEGER, block_hash TEXT, event TEXT, seq BIGINT)
             ON CONFLICT (block_number, log_index) DO UPDATE SET block_hash = excluded.block_hash, event = excluded.event, seq = excluded.seq`,
            [JSON.stringify(rows)],
          )
          await tx.unsafe(setMeta, ['change_seq', String(first - 1 + batch.events.length)])
        }
        const hashes = [...batch.hashes, [batch.checkpoint.block, batch.checkpoint.hash] as const]
        for (const [block, hash] of hashes) {
          await tx.unsafe(
            `INSERT INTO ${table('block_hashes')} (block_number, hash) VALUES ($1, $2) ON CONFLICT (block_number) DO UPDATE SET hash = excluded.hash`,
            [block.toString(), hash],
          )
        }
        await tx.unsafe(`DELETE FROM ${table('block_hashes')} WHERE block_number <= $1`, [(batch.checkpoint.block - BigInt(hashWindow)).toString()])
        await tx.unsafe(setMeta, ['checkpoint_block', batch.checkpoint.block.toString()])
        await tx.unsafe(setMeta, ['checkpoint_hash', batch.checkpoint.hash])
        let truncated = batch.truncated
        let total = count + batch.events.length
        let floor = await metaNumber(query, 'history_floor')
        if (total > retention) {
          const [oldestKept] = await tx.unsafe(`SELECT block_number, log_index FROM ${table('events')} ORDER BY block_number, log_index LIMIT 1 OFFSET $1`, [total - retention])
          if (oldestKept) {
            await tx.unsafe(`DELETE FROM ${table('events')} WHERE block_number < $1 OR (block_number = $1 AND log_index < $2)`, [oldestKept.block_number, oldestKept.log_index])
          }
          total = retention
          truncated = true
          // What retention dropped leaves the history: a cursor below the oldest kept event cannot resume exactly.
          const [oldest] = await tx.unsafe(`SELECT MIN(seq) AS seq FROM ${table('events')}`)
          if (oldest?.seq !== null && oldest?.seq !== undefined) floor = await raiseFloor(tx, 'history_floor', Number(oldest.seq) - 1)
        }
        if (truncated) await tx.unsafe(setMeta, ['truncated', 'true'])
        return { total, result: { lastSeq: first - 1 + batch.events.length, floor } }
      })
      count = done.total
      return done.result
    },
    async knownHashes(block: bigint) {
      const rows: { block_number: string; hash: string }[] = await sql.unsafe(
        `SELECT block_number, hash FROM ${table('block_hashes')} WHERE block_number <= $1
         UNION SELECT DISTINCT block_number, block_hash FROM ${table('events')} WHERE block_number <= $1
         ORDER BY block_number`,
        [block.toString()],
      )
      return rows.map((row) => [BigInt(row.block_number), row.hash as Hash] as const)
    },
    async rewind(to: Checkpoint | undefined): Promise<RewindResult> {
      const result = await asWriter(async (tx) => {
        const query = txQuery(tx)
        const above = to === undefined ? '-1' : to.block.toString()
        const rows = await tx.unsafe(
          `DELETE FROM ${table('events')} WHERE block_number > $1 RETURNING seq, event, block_number, log_index`,
          [above],
        )
        await tx.unsafe(`DELETE FROM ${table('block_hashes')} WHERE block_number > $1`, [above])
        if (to === undefined) {
          await tx.unsafe(`DELETE FROM ${table('meta')} WHERE key IN ('checkpoint_block', 'checkpoint_hash')`)
        } else {
          await tx.unsafe(setMeta, ['checkpoint_block', to.block.toString()])
          await tx.unsafe(setMeta, ['checkpoint_hash', to.hash])
        }
        let seq = await metaNumber(query, 'change_seq')
        let removalsFloor = await metaNumber(query, 'removals_floor')
        const removed: Removal[] = []
        if (rows.length > 0) {
          seq++
          await tx.unsafe(setMeta, ['change_seq', String(seq)])
          const ordered = [...rows].sort((a, b) => Number(a.block_number) - Number(b.block_number) || Number(a.log_index) - Number(b.log_index))
          const values = ordered.map((row) => ({ seq, added_seq: Number(row.seq), block_number: row.block_number, log_index: row.log_index, event: row.event }))
          await tx.unsafe(
            `INSERT INTO ${table('removals')} (seq, added_seq, block_number, log_index, event)
             SELECT * FROM json_to_recordset(($1::text)::json) AS r(seq BIGINT, added_seq BIGINT, block_number BIGINT, log_index INTEGER, event TEXT)`,
            [JSON.stringify(values)],
          )
          for (const value of values) removed.push({ seq, addedSeq: value.added_seq, event: JSON.parse(String(value.event)) as ActivityEvent })
          // At most `retention` removed events are kept; older removals raise the removals' floor.
          const [bound] = await tx.unsafe(`SELECT seq FROM ${table('removals')} ORDER BY seq DESC, added_seq DESC LIMIT 1 OFFSET $1`, [retention])
          if (bound) removalsFloor = await raiseFloor(tx, 'removals_floor', Number(bound.seq))
        }
        return { seq, removed, removalsFloor }
      })
      count -= result.removed.length
      return result
    },
    /** Gives the writer lock up (its connection goes back) and closes every connection. */
    async close(): Promise<void> {
      await subscription?.unlisten().catch(() => {})
      subscription = undefined
      await onLead(async () => {
        if (!lead) return
        await lead.unsafe(`SELECT pg_advisory_unlock(${lockKey})`).catch(() => {})
        dropLead()
      })
      await sql.close({ timeout: 2 }).catch(() => {})
    },
  } satisfies IndexerStore & Record<string, unknown>

  async function takeLead(): Promise<boolean> {
    if (lead) {
      try {
        await lead.unsafe('SELECT 1')
        return true
      } catch {
        dropLead()
        return false
      }
    }
    const connection = await sql.reserve()
    try {
      const [row] = await connection.unsafe(`SELECT pg_try_advisory_lock(${lockKey}) AS ok`)
      if (!row?.ok) {
        connection.release()
        return false
      }
      const [counted] = await connection.unsafe(`SELECT COUNT(*) AS n FROM ${table('events')}`)
      count = Number(counted?.n ?? 0)
      lead = connection
      return true
    } catch (error) {
      connection.release()
      throw error
    }
  }

  function dropLead() {
    // Closed, not returned to the pool: a session that lost its lock (ended, or cut off) is not reused.
    lead?.close().catch(() => {})
    lead = undefined
  }

  return store
}

export type PostgresStore = ReturnType<typeof createPostgresStore>

/** What a read replica must do to serve the store's current state (see `changesSince`). */
export type StoreChange =
  | { kind: 'same' }
  | { kind: 'moved' }
  | {
      kind: 'after'
      checkpoint: Checkpoint | undefined
      lastSeq: number
      floor: number
      removalsFloor: number
      /** The events added since, in chain order (which is change order), and their numbers. */
      events: ActivityEvent[]
      seqs: number[]
      /** Removals since, oldest first. */
      removals: Removal[]
      truncated: boolean
    }

type EventRow = { event: string; seq: string | number }

/** The events' JSON array, from each row's stored JSON. */
function eventsText(rows: readonly EventRow[]): string {
  const texts: string[] = new Array(rows.length)
  for (let i = 0; i < rows.length; i++) texts[i] = rows[i]!.event
  return `[${texts.join(',')}]`
}

/** A driver error as one line, without credentials. */
function describe(error: unknown): string {
  const code = (error as { code?: unknown })?.code
  const message = error instanceof Error ? error.message : String(error)
  return redactUrls(typeof code === 'string' ? `${code}: ${message}` : message)
}
