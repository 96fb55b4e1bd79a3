import { SQL } from 'bun'
import type { Hash } from 'viem'
import { ConfigError, type Logger, redactUrl, redactUrls } from '../../shared/index.ts'
import type { ActivityEvent } from '../../wire/index.ts'
import { indexDigest } from './location.ts'
import { eventJson, schemaStatements, schemaVersion, upgradeEventsStatements, upgradeLine } from './schema.ts'
import { type Checkpoint, type IndexerStore, lazyEvents, type StoreCommit, type StoredState, type StoreIdentity, StoreMismatchError } from './types.ts'

export type PostgresStoreOptions = {
  /** `postgres://user:password@host:port/database` (INDEXER_DATABASE_URL). */
  url: string
  identity: StoreIdentity
  /** Most events kept; older ones are deleted at each commit. */
  retention: number
  /** How many of the newest block hashes `indexer_block_hashes` keeps. */
  hashWindow: number
  /** Told when a version 1 schema is converted (the one step of opening that can take long). */
  logger?: Pick<Logger, 'info'>
}

/** The writer lock was lost (its connection closed): this process must stop writing. */
export class WriterLockLostError extends Error {
  override name = 'WriterLockLostError'
}

/**
 * The indexer store in PostgreSQL (`Bun.SQL`): the SQLite store's tables in one
 * schema per index (`indexer_<chainId>_<digest>`, created if missing), so another
 * chain or address set never shares rows. Many processes open it; one of them is the
 * writer, holding `pg_try_advisory_lock(<key of this index>)` on a connection kept for
 * its life. `commit` and `rewind` run on that connection and check the lock inside
 * their transaction, so a process that lost it can never write.
 *
 * @example
 * const store = createPostgresStore({ url, identity, retention: 10_000, hashWindow: 128 })
 * await store.open()
 * if (await store.tryLead()) await store.commit(batch)
 */
export function createPostgresStore(options: PostgresStoreOptions) {
  const { url, identity, retention, hashWindow } = options
  const digest = indexDigest(identity.addresses, identity.deployedAt)
  const schema = `indexer_${identity.chainId}_${digest.slice(0, 12)}`
  /** The writer lock's key: 60 bits of the digest with the chain id, a positive BIGINT. */
  const lockKey = BigInt(`0x${indexDigest([String(identity.chainId), ...identity.addresses], identity.deployedAt).slice(0, 15)}`).toString()
  const table = (name: 'meta' | 'events' | 'block_hashes') => `${schema}.indexer_${name}`
  const shown = redactUrl(url)
  // No idle timeout: the writer's reserved connection holds the lock and may be quiet for a long INDEXER_POLL_MS.
  const sql = new SQL(url, { max: 4, connectionTimeout: 5 })
  /** The writer's connection, holding the lock; undefined while not the writer. */
  let lead: Awaited<ReturnType<typeof sql.reserve>> | undefined
  let count = 0
  /** The writer's connection runs one thing at a time: a lock check never lands inside a commit's transaction. */
  let leadQueue: Promise<unknown> = Promise.resolve()
  function onLead<T>(work: () => Promise<T>): Promise<T> {
    const run = leadQueue.then(work, work)
    leadQueue = run.catch(() => {})
    return run
  }

  const meta = (key: string) => `SELECT value FROM ${table('meta')} WHERE key = '${key}'`
  const setMeta = `INSERT INTO ${table('meta')} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`

  async function readCheckpoint(query: (text: string) => Promise<{ value: string }[]>): Promise<Checkpoint | undefined> {
    const [block] = await query(meta('checkpoint_block'))
    const [hash] = await query(meta('checkpoint_hash'))
    return block === undefined || hash === undefined ? undefined : { block: BigInt(block.value), hash: hash.value as Hash }
  }

  /** Runs `write` in one transaction on the writer's connection, after checking the lock is still ours. */
  async function asWriter<T>(write: (tx: SQL) => Promise<T>): Promise<T> {
    return onLead(() => {
      if (!lead) throw new WriterLockLostError(`not the writer of ${schema}`)
      return lead.begin(async (tx) => {
        // Advisory locks are re-entrant per session: this holds only on the session holding the writer lock.
        const [row] = await tx.unsafe(`SELECT pg_try_advisory_xact_lock(${lockKey}) AS ok`)
        if (!row?.ok) throw new WriterLockLostError(`the writer lock of ${schema} is held by another process`)
        return write(tx)
      }) as Promise<T>
    })
  }

  const store = {
    location: `PostgreSQL ${shown} schema ${schema}`,
    schema,
    lockKey,
    /** Connects, creates the schema and tables if missing and checks they hold this index; a clear ConfigError when PostgreSQL cannot be reached. */
    async open(): Promise<void> {
      try {
        await sql.begin(async (tx) => {
          // Serializes first-time creation between processes starting together (not the writer lock's key).
          await tx.unsafe(`SELECT pg_advisory_xact_lock(${BigInt(lockKey) - 1n})`)
          await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
          for (const statement of schemaStatements) await tx.unsafe(statement.replace(/\bindexer_(meta|events|block_hashes)\b/, (name) => `${schema}.${name}`))
          // An index at schema version 1 is checked as it is, then converted.
          await tx.unsafe(`INSERT INTO ${table('meta')} (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO NOTHING`, [String(schemaVersion)])
          const [version] = await tx.unsafe(meta('schema_version'))
          const upgrade = version?.value === '1'
          const expected: Record<string, string> = {
            schema_version: upgrade ? '1' : String(schemaVersion),
            chain_id: String(identity.chainId),
            addresses: identity.addresses.map((address) => address.toLowerCase()).join(','),
            deployed_at: identity.deployedAt.toString(),
          }
          for (const [key, value] of Object.entries(expected)) {
            await tx.unsafe(`INSERT INTO ${table('meta')} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, [key, value])
            const [row] = await tx.unsafe(meta(key))
            if (row?.value !== value) {
              throw new StoreMismatchError(`INDEXER_DATABASE_URL ${shown} schema ${schema} holds another index (${key} ${row?.value ?? 'missing'}, not ${value}): drop that schema or use another database`)
            }
          }
          if (upgrade) {
            const began = performance.now()
            const [counted] = await tx.unsafe(`SELECT COUNT(*) AS n FROM ${table('events')}`)
            options.logger?.info(upgradeLine(`PostgreSQL schema ${schema}`, Number(counted?.n ?? 0)))
            for (const statement of upgradeEventsStatements((name) => `${schema}.${name}`, (column) => `to_json(${column})::text`)) await tx.unsafe(statement)
            await tx.unsafe(setMeta, ['schema_version', String(schemaVersion)])
            options.logger?.info(`indexer: PostgreSQL schema ${schema} converted to schema version ${schemaVersion} in ${Math.round(performance.now() - began)} ms`)
          }
        })
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
      return onLead(takeLead)
    },

    /** The stored checkpoint (what read replicas poll to see the writer move). */
    async checkpoint(): Promise<Checkpoint | undefined> {
      return readCheckpoint((text) => sql.unsafe(text))
    },
    async load(limit: number): Promise<StoredState> {
      // One consistent view: the checkpoint and the events of the same commit.
      return sql.begin('isolation level repeatable read read only', async (tx) => {
        const rows: EventRow[] = await tx.unsafe(
          `SELECT event FROM ${table('events')}
           ORDER BY block_number DESC, log_index DESC LIMIT $1`,
          [limit],
        )
        const eventsJson = eventsText(rows.reverse())
        const [truncated] = await tx.unsafe(meta('truncated'))
        return lazyEvents({
          checkpoint: await readCheckpoint((text) => tx.unsafe(text)),
          truncated: truncated?.value === 'true',
          eventCount: rows.length,
          eventsJson,
        })
      }) as Promise<StoredState>
    },
    /**
     * What changed since `served` (the checkpoint a read replica serves), in one
     * consistent read: nothing; the events committed after it (when it is still the
     * store's block at its height and at most `limit` events came); or `moved` (a
     * rewind, or too much to append): load everything again.
     */
    async changesSince(served: Checkpoint | undefined, limit: number): Promise<StoreChange> {
      return sql.begin('isolation level repeatable read read only', async (tx) => {
        const checkpoint = await readCheckpoint((text) => tx.unsafe(text))
        if (checkpoint === undefined || served === undefined) return { kind: checkpoint === served ? 'same' : 'moved' }
        if (checkpoint.block === served.block && checkpoint.hash === served.hash) return { kind: 'same' }
        if (checkpoint.block < served.block) return { kind: 'moved' }
        const [kept] = await tx.unsafe(`SELECT hash FROM ${table('block_hashes')} WHERE block_number = $1`, [served.block.toString()])
        if (kept?.hash !== served.hash) return { kind: 'moved' }
        const rows: EventRow[] = await tx.unsafe(
          `SELECT event FROM ${table('events')}
           WHERE block_number > $1 ORDER BY block_number, log_index LIMIT $2`,
          [served.block.toString(), limit + 1],
        )
        if (rows.length > limit) return { kind: 'moved' }
        const [truncated] = await tx.unsafe(meta('truncated'))
        return { kind: 'after', checkpoint, events: JSON.parse(eventsText(rows)) as ActivityEvent[], truncated: truncated?.value === 'true' }
      }) as Promise<StoreChange>
    },
    async commit(batch: StoreCommit): Promise<void> {
      const added = await asWriter(async (tx) => {
        if (batch.events.length > 0) {
          const rows = batch.events.map(({ event, blockHash }) => ({
            block_number: event.blockNumber,
            log_index: event.logIndex,
            block_hash: blockHash,
            event: eventJson(event),
          }))
          await tx.unsafe(
            `INSERT INTO ${table('events')} (block_number, log_index, block_hash, event)
             SELECT * FROM json_to_recordset(($1::text)::json) AS r(block_number BIGINT, log_index INTEGER, block_hash TEXT, event TEXT)
             ON CONFLICT (block_number, log_index) DO UPDATE SET block_hash = excluded.block_hash, event = excluded.event`,
            [JSON.stringify(rows)],
          )
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
        if (total > retention) {
          const [oldestKept] = await tx.unsafe(`SELECT block_number, log_index FROM ${table('events')} ORDER BY block_number, log_index LIMIT 1 OFFSET $1`, [total - retention])
          if (oldestKept) {
            await tx.unsafe(`DELETE FROM ${table('events')} WHERE block_number < $1 OR (block_number = $1 AND log_index < $2)`, [oldestKept.block_number, oldestKept.log_index])
          }
          total = retention
          truncated = true
        }
        if (truncated) await tx.unsafe(setMeta, ['truncated', 'true'])
        return total
      })
      count = added
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
    async rewind(to: Checkpoint | undefined): Promise<number> {
      const dropped = await asWriter(async (tx) => {
        const above = to === undefined ? '-1' : to.block.toString()
        const result = await tx.unsafe(`DELETE FROM ${table('events')} WHERE block_number > $1`, [above])
        await tx.unsafe(`DELETE FROM ${table('block_hashes')} WHERE block_number > $1`, [above])
        if (to === undefined) {
          await tx.unsafe(`DELETE FROM ${table('meta')} WHERE key IN ('checkpoint_block', 'checkpoint_hash')`)
        } else {
          await tx.unsafe(setMeta, ['checkpoint_block', to.block.toString()])
          await tx.unsafe(setMeta, ['checkpoint_hash', to.hash])
        }
        return Number((result as unknown as { count: number }).count ?? 0)
      })
      count -= dropped
      return dropped
    },
    /** Gives the writer lock up (its connection goes back) and closes every connection. */
    async close(): Promise<void> {
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
    try {
      lead?.release()
    } catch {
      // The connection is already gone.
    }
    lead = undefined
  }

  return store
}

export type PostgresStore = ReturnType<typeof createPostgresStore>

/** What a read replica must do to serve the store's current state (see `changesSince`). */
export type StoreChange =
  | { kind: 'same' }
  | { kind: 'moved' }
  | { kind: 'after'; checkpoint: Checkpoint; events: ActivityEvent[]; truncated: boolean }

type EventRow = { event: string }

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
