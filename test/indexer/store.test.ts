import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Hash } from 'viem'
import { createPostgresStore, type IndexerStore, openSqliteStore, type StoredEvent, WriterLockLostError } from '../../src/indexer/store/index.ts'
import { postgresMissing, startPostgres, type TestPostgres } from '../../scripts/lib/index.ts'

const dir = mkdtempSync(join(tmpdir(), 'indexer-store-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const identity = { chainId: 31337, addresses: ['0x0000000000000000000000000000000000000001'], deployedAt: 1n }
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hash
/** What load() answers: the events and, byte for byte, their JSON; their change numbers when given. */
const state = (checkpoint: { block: bigint; hash: Hash } | undefined, truncated: boolean, events: StoredEvent[], seqs?: number[]) => ({
  checkpoint,
  truncated,
  events: events.map((e) => e.event),
  eventCount: events.length,
  eventsJson: JSON.stringify(events.map((e) => e.event)),
  seqs: seqs ?? expect.any(Array),
  history: expect.objectContaining({ id: expect.stringMatching(/^[0-9a-f]{8}$/) }),
})
const stored = (block: number, logIndex = 0): StoredEvent => ({
  event: { name: 'LienProposed', address: '0x0000000000000000000000000000000000000001', blockNumber: String(block), logIndex, transactionHash: hash(1000 + block), fields: { lienId: hash(block), note: 'a "quoted" \\ value' } },
  blockHash: hash(block),
})

/** Events whose strings need escaping, as the version 1 columns held them and the version 2 JSON must give them back. */
const oddEvents = (first: number): StoredEvent[] =>
  ['a "quote" and a \\ backslash', 'line\nbreak\ttab\r', 'control \u0001\u001f', 'é ü 日本 🙂', 'separators \u2028\u2029', ''].map((text, i) => ({
    event: { name: `Odd${text}`, address: text, blockNumber: String(first + i), logIndex: i, transactionHash: hash(i) + text, fields: { text, other: `${text}!` } },
    blockHash: hash(first + i),
  }))

/** The store contract, for each implementation: `open` gives a store of one index (reopening gives the same data). */
const kinds: { name: string; skip?: string | undefined; open: (key: string, retention?: number) => Promise<IndexerStore> }[] = [
  { name: 'SQLite', open: async (key, retention = 3) => openSqliteStore({ path: join(dir, `${key}.sqlite`), identity, retention, hashWindow: 2 }) },
  {
    name: 'PostgreSQL',
    skip: postgresMissing,
    async open(key, retention = 3) {
      const store = createPostgresStore({ url: postgres!.url, identity: { ...identity, deployedAt: BigInt(key.length) }, retention, hashWindow: 2 })
      await store.open()
      expect(await store.tryLead()).toBe(true)
      return store
    },
  },
]
let postgres: TestPostgres | undefined
if (postgresMissing) console.log(`store.test.ts: PostgreSQL cases skipped: ${postgresMissing}`)
beforeAll(async () => {
  if (!postgresMissing) postgres = await startPostgres()
}, 60_000)
afterAll(async () => {
  await postgres?.stop()
})

for (const kind of kinds) test.skipIf(kind.skip !== undefined)(`${kind.name}: commits survive reopening; retention keeps the newest events and marks truncated; rewind drops above the fork`, async () => {
  const store = await kind.open('index')
  expect(await store.load(10)).toEqual(state(undefined, false, []))
  await store.commit({ events: [stored(2), stored(2, 1)], hashes: [], checkpoint: { block: 5n, hash: hash(5) }, truncated: false })
  await store.commit({ events: [stored(7)], hashes: [[6n, hash(6)]], checkpoint: { block: 8n, hash: hash(8) }, truncated: false })
  expect(await store.load(10)).toEqual(state({ block: 8n, hash: hash(8) }, false, [stored(2), stored(2, 1), stored(7)]))
  await store.commit({ events: [stored(9)], hashes: [], checkpoint: { block: 9n, hash: hash(9) }, truncated: false })
  await store.close()

  const reopened = await kind.open('index')
  const loaded = await reopened.load(10)
  expect(loaded).toEqual(state({ block: 9n, hash: hash(9) }, true, [stored(2, 1), stored(7), stored(9)]))
  expect((await reopened.load(2)).events).toEqual([stored(7).event, stored(9).event])
  // Known hashes: the window (blocks above 9 - 2) and every block an event came from.
  expect(await reopened.knownHashes(9n)).toEqual([[2n, hash(2)], [7n, hash(7)], [8n, hash(8)], [9n, hash(9)]])

  expect((await reopened.rewind({ block: 7n, hash: hash(7) })).removed.length).toBe(1)
  expect(await reopened.load(10)).toEqual(state({ block: 7n, hash: hash(7) }, true, [stored(2, 1), stored(7)]))
  expect((await reopened.rewind(undefined)).removed.length).toBe(2)
  expect((await reopened.load(10)).checkpoint).toBeUndefined()
  await reopened.close()
})

for (const kind of kinds) test.skipIf(kind.skip !== undefined)(`${kind.name}: a range of many events (SQLite: several multi-row statements) loads back whole, in order; the next one over the retention drops the oldest`, async () => {
  const store = await kind.open('many', 200)
  // 64-row statements: two full ones and a remainder.
  const events = Array.from({ length: 150 }, (_, i) => stored(10 + Math.floor(i / 7), i % 7))
  await store.commit({ events, hashes: [], checkpoint: { block: 40n, hash: hash(40) }, truncated: false })
  expect(await store.load(200)).toEqual(state({ block: 40n, hash: hash(40) }, false, events))
  // The next range goes over the retention: the oldest drop.
  const next = Array.from({ length: 70 }, (_, i) => stored(41 + Math.floor(i / 7), i % 7))
  await store.commit({ events: next, hashes: [], checkpoint: { block: 60n, hash: hash(60) }, truncated: false })
  expect(await store.load(200)).toEqual(state({ block: 60n, hash: hash(60) }, true, [...events, ...next].slice(-200)))
  await store.close()
})

for (const kind of kinds) test.skipIf(kind.skip !== undefined)(`${kind.name}: the change history numbers events in chain order, records a rewind's removals under one number, and keeps it across a reopen; retention raises the floor`, async () => {
  const store = await kind.open('history', 4)
  expect((await store.load(10)).history).toEqual({ id: expect.stringMatching(/^[0-9a-f]{8}$/), lastSeq: 0, floor: 0, removalsFloor: 0, removals: [] })
  expect(await store.commit({ events: [stored(2), stored(2, 1), stored(3)], hashes: [], checkpoint: { block: 3n, hash: hash(3) }, truncated: false })).toEqual({ lastSeq: 3, floor: 0 })
  // A range without events moves the checkpoint, not the history.
  expect(await store.commit({ events: [], hashes: [], checkpoint: { block: 4n, hash: hash(4) }, truncated: false })).toEqual({ lastSeq: 3, floor: 0 })
  expect(await store.rewind({ block: 2n, hash: hash(2) })).toEqual({ seq: 4, removed: [{ seq: 4, addedSeq: 3, event: stored(3).event }], removalsFloor: 0 })
  // Nothing above the fork: no removal, no number.
  expect(await store.rewind({ block: 2n, hash: hash(2) })).toEqual({ seq: 4, removed: [], removalsFloor: 0 })
  expect(await store.commit({ events: [stored(3, 5), stored(4)], hashes: [], checkpoint: { block: 4n, hash: hash(44) }, truncated: false })).toEqual({ lastSeq: 6, floor: 0 })
  const { id } = (await store.load(10)).history
  await store.close()

  const reopened = await kind.open('history', 4)
  const loaded = await reopened.load(10)
  expect(loaded).toEqual(state({ block: 4n, hash: hash(44) }, false, [stored(2), stored(2, 1), stored(3, 5), stored(4)], [1, 2, 5, 6]))
  expect(loaded.history).toEqual({ id, lastSeq: 6, floor: 0, removalsFloor: 0, removals: [{ seq: 4, addedSeq: 3, event: stored(3).event }] })
  // Over the retention (4): the two oldest leave, and a cursor below the oldest kept (5) cannot resume exactly.
  expect(await reopened.commit({ events: [stored(5), stored(6)], hashes: [], checkpoint: { block: 6n, hash: hash(6) }, truncated: false })).toEqual({ lastSeq: 8, floor: 4 })
  const after = await reopened.load(10)
  expect(after.seqs).toEqual([5, 6, 7, 8])
  // The removal at 4 is at the floor: no cursor that can resume needs it.
  expect(after.history).toEqual({ id, lastSeq: 8, floor: 4, removalsFloor: 0, removals: [] })
  await reopened.close()
})

test(':memory: keeps nothing between opens', async () => {
  const first = openSqliteStore({ path: ':memory:', identity, retention: 10, hashWindow: 128 })
  await first.commit({ events: [stored(3)], hashes: [], checkpoint: { block: 3n, hash: hash(3) }, truncated: false })
  await first.close()
  const second = openSqliteStore({ path: ':memory:', identity, retention: 10, hashWindow: 128 })
  expect(await second.load(10)).toEqual(state(undefined, false, []))
  await second.close()
})

test.skipIf(postgresMissing !== undefined)('PostgreSQL: one writer per index; a store without the lock cannot write; another index is another schema', async () => {
  const open = async (deployedAt: bigint) => {
    const store = createPostgresStore({ url: postgres!.url, identity: { ...identity, deployedAt }, retention: 10, hashWindow: 128 })
    await store.open()
    return store
  }
  const [first, second, other] = [await open(100n), await open(100n), await open(101n)]
  expect(first.schema).toBe(second.schema)
  expect(other.schema).not.toBe(first.schema)
  expect(await first.tryLead()).toBe(true)
  expect(await second.tryLead()).toBe(false)
  expect(await other.tryLead()).toBe(true)
  await expect(second.commit({ events: [stored(3)], hashes: [], checkpoint: { block: 3n, hash: hash(3) }, truncated: false })).rejects.toBeInstanceOf(WriterLockLostError)
  await first.commit({ events: [stored(3)], hashes: [], checkpoint: { block: 3n, hash: hash(3) }, truncated: false })
  // A reader sees the writer's commit; the other index sees nothing of it.
  expect(await second.checkpoint()).toEqual({ block: 3n, hash: hash(3) })
  expect(await second.load(10)).toEqual(state({ block: 3n, hash: hash(3) }, false, [stored(3)]))
  expect(await other.load(10)).toEqual(state(undefined, false, []))
  // The writer closes (its connection gives the lock up): the standby takes it and continues.
  await first.close()
  expect(await second.tryLead()).toBe(true)
  await second.commit({ events: [stored(4)], hashes: [], checkpoint: { block: 4n, hash: hash(4) }, truncated: false })
  expect((await second.load(10)).events).toEqual([stored(3).event, stored(4).event])
  await second.close()
  await other.close()
})

test('PostgreSQL unreachable: the error names INDEXER_DATABASE_URL without its password', async () => {
  const store = createPostgresStore({ url: 'postgres://indexer:s3cret-pw@127.0.0.1:1/index', identity, retention: 10, hashWindow: 128 })
  const error = await store.open().then(() => undefined, (caught: unknown) => caught)
  expect(error).toBeInstanceOf(Error)
  const message = (error as Error).message
  expect(message).toStartWith('INDEXER_DATABASE_URL postgres://127.0.0.1:1/index: cannot open the index in PostgreSQL (')
  expect(message).not.toContain('s3cret-pw')
})

test.skipIf(postgresMissing !== undefined)('PostgreSQL: changesSince tells a read replica what to do: nothing, the changes after its number (events and removals), or load all again', async () => {
  const store = createPostgresStore({ url: postgres!.url, identity: { ...identity, deployedAt: 200n }, retention: 10, hashWindow: 128 })
  await store.open()
  expect(await store.tryLead()).toBe(true)
  expect(await store.changesSince(undefined, 10)).toEqual({ kind: 'same' })
  await store.commit({ events: [stored(3)], hashes: [], checkpoint: { block: 3n, hash: hash(3) }, truncated: false })
  expect(await store.changesSince(undefined, 10)).toEqual({ kind: 'moved' })
  const { id } = (await store.load(10)).history
  const at3 = { historyId: id, seq: 1, checkpoint: { block: 3n, hash: hash(3) } }
  expect(await store.changesSince(at3, 10)).toEqual({ kind: 'same' })
  await store.commit({ events: [stored(5), stored(6), stored(6, 1)], hashes: [], checkpoint: { block: 6n, hash: hash(6) }, truncated: false })
  const after = { kind: 'after' as const, checkpoint: { block: 6n, hash: hash(6) }, lastSeq: 4, floor: 0, removalsFloor: 0, removals: [], truncated: false }
  expect(await store.changesSince(at3, 10)).toEqual({ ...after, events: [stored(5).event, stored(6).event, stored(6, 1).event], seqs: [2, 3, 4] })
  // The checkpoint moved without events: the new checkpoint, nothing to add.
  await store.commit({ events: [], hashes: [], checkpoint: { block: 7n, hash: hash(7) }, truncated: false })
  expect(await store.changesSince({ ...at3, seq: 4, checkpoint: { block: 6n, hash: hash(6) } }, 10)).toEqual({ ...after, checkpoint: { block: 7n, hash: hash(7) }, events: [], seqs: [] })
  // More than the limit came: load all again.
  expect(await store.changesSince(at3, 2)).toEqual({ kind: 'moved' })
  // A reorg the writer repaired: the removal (number 5) and what came after it.
  await store.rewind({ block: 5n, hash: hash(5) })
  await store.commit({ events: [stored(6, 2)], hashes: [], checkpoint: { block: 6n, hash: hash(66) }, truncated: false })
  expect(await store.changesSince({ ...at3, seq: 4, checkpoint: { block: 7n, hash: hash(7) } }, 10)).toEqual({
    ...after,
    checkpoint: { block: 6n, hash: hash(66) },
    lastSeq: 6,
    events: [stored(6, 2).event],
    seqs: [6],
    removals: [{ seq: 5, addedSeq: 3, event: stored(6).event }, { seq: 5, addedSeq: 4, event: stored(6, 1).event }],
  })
  // Another history (the schema was replaced), or a number ahead of it: load all again.
  expect(await store.changesSince({ ...at3, historyId: '00000000' }, 10)).toEqual({ kind: 'moved' })
  expect(await store.changesSince({ ...at3, seq: 99 }, 10)).toEqual({ kind: 'moved' })
  await store.close()
})

test('SQLite: events stored out of chain order in the table (written by hand, or by an older build) still load in chain order, the newest `limit`', async () => {
  const path = join(dir, 'out-of-order.sqlite')
  const first = openSqliteStore({ path, identity, retention: 10, hashWindow: 2 })
  await first.commit({ events: [stored(5)], hashes: [], checkpoint: { block: 9n, hash: hash(9) }, truncated: false })
  await first.close()
  // Rows whose table order is not chain order.
  const db = new Database(path)
  const insert = db.query('INSERT INTO indexer_events (block_number, log_index, block_hash, event, seq) VALUES (?, ?, ?, ?, ?)')
  for (const [i, each] of [stored(3), stored(8), stored(5, 1)].entries()) insert.run(Number(each.event.blockNumber), each.event.logIndex, each.blockHash, JSON.stringify(each.event), 10 + i)
  db.close()
  const reopened = openSqliteStore({ path, identity, retention: 10, hashWindow: 2 })
  expect(await reopened.load(10)).toEqual(state({ block: 9n, hash: hash(9) }, false, [stored(3), stored(5), stored(5, 1), stored(8)]))
  expect((await reopened.load(2)).events).toEqual([stored(5, 1).event, stored(8).event])
  await reopened.close()
})

test('SQLite: the events JSON a restart loads is byte for byte JSON.stringify of the events, strings that need escaping included', async () => {
  const path = join(dir, 'escaping.sqlite')
  const events = oddEvents(10)
  const store = openSqliteStore({ path, identity, retention: 100, hashWindow: 2 })
  await store.commit({ events, hashes: [], checkpoint: { block: 20n, hash: hash(20) }, truncated: false })
  await store.close()
  for (const limit of [100, 3]) {
    const reopened = openSqliteStore({ path, identity, retention: 100, hashWindow: 2 })
    const loaded = await reopened.load(limit)
    const kept = events.slice(-limit).map((each) => each.event)
    expect(loaded.eventsJson).toBe(JSON.stringify(kept))
    expect(loaded.events).toEqual(kept)
    await reopened.close()
  }
})

/** Version 1's tables: a column per event field, where version 2 keeps each event as its JSON. */
const version1Tables = (table: (name: string) => string) => [
  `CREATE TABLE ${table('indexer_meta')} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  `CREATE TABLE ${table('indexer_events')} (block_number BIGINT NOT NULL, log_index INTEGER NOT NULL, block_hash TEXT NOT NULL,
    transaction_hash TEXT NOT NULL, address TEXT NOT NULL, name TEXT NOT NULL, fields TEXT NOT NULL, PRIMARY KEY (block_number, log_index))`,
  `CREATE TABLE ${table('indexer_block_hashes')} (block_number BIGINT PRIMARY KEY, hash TEXT NOT NULL)`,
]
const version1Meta = (deployedAt: bigint) => ({
  schema_version: '1',
  chain_id: String(identity.chainId),
  addresses: identity.addresses.join(','),
  deployed_at: deployedAt.toString(),
  checkpoint_block: '30',
  checkpoint_hash: hash(30),
})
const version1Row = ({ event, blockHash }: StoredEvent) => [Number(event.blockNumber), event.logIndex, blockHash, event.transactionHash, event.address, event.name, JSON.stringify(event.fields)] as const

test('SQLite: a version 1 file (events in columns) is converted when opened: the same events, byte for byte, and it goes on from there', async () => {
  const path = join(dir, 'version1.sqlite')
  const events = oddEvents(20)
  const db = new Database(path)
  for (const statement of version1Tables((name) => name)) db.exec(statement)
  for (const [key, value] of Object.entries(version1Meta(identity.deployedAt))) db.query('INSERT INTO indexer_meta (key, value) VALUES (?, ?)').run(key, value)
  const insert = db.query('INSERT INTO indexer_events VALUES (?, ?, ?, ?, ?, ?, ?)')
  for (const each of [...events].reverse()) insert.run(...version1Row(each))
  db.close()

  const lines: string[] = []
  const store = openSqliteStore({ path, identity, retention: 100, hashWindow: 2, logger: { info: (line) => lines.push(line) } })
  expect(lines).toEqual([
    `indexer: converting ${path} from schema version 1 to 3 (6 events, each kept as its JSON from now on, numbered for the change history); this happens once`,
    expect.stringMatching(/^indexer: .+ converted to schema version 3 in \d+ ms$/),
  ])
  expect(await store.load(100)).toEqual(state({ block: 30n, hash: hash(30) }, false, events))
  await store.commit({ events: [stored(31)], hashes: [], checkpoint: { block: 31n, hash: hash(31) }, truncated: false })
  await store.close()
  const check = new Database(path)
  expect(check.query('SELECT value FROM indexer_meta WHERE key = ?').get('schema_version')).toEqual({ value: '3' })
  check.close()
  const reopened = openSqliteStore({ path, identity, retention: 100, hashWindow: 2, logger: { info: (line) => lines.push(line) } })
  expect(lines).toHaveLength(2)
  expect(await reopened.load(100)).toEqual(state({ block: 31n, hash: hash(31) }, false, [...events, stored(31)]))
  // Reorg evidence survives the conversion.
  expect((await reopened.knownHashes(21n)).slice(0, 2)).toEqual([[20n, hash(20)], [21n, hash(21)]])
  await reopened.close()
})

test('SQLite: a file of another index is refused before anything is converted', async () => {
  const path = join(dir, 'version1-other.sqlite')
  const db = new Database(path)
  for (const statement of version1Tables((name) => name)) db.exec(statement)
  for (const [key, value] of Object.entries(version1Meta(99n))) db.query('INSERT INTO indexer_meta (key, value) VALUES (?, ?)').run(key, value)
  db.close()
  expect(() => openSqliteStore({ path, identity, retention: 100, hashWindow: 2 })).toThrow(`INDEXER_DB ${path} holds another index (deployed_at 99, not 1)`)
  const check = new Database(path)
  expect(check.query('SELECT value FROM indexer_meta WHERE key = ?').get('schema_version')).toEqual({ value: '1' })
  check.close()
})

test.skipIf(postgresMissing !== undefined)('PostgreSQL: a version 1 schema (events in columns) is converted when opened: the same events, byte for byte', async () => {
  const deployedAt = 300n
  const lines: string[] = []
  const store = createPostgresStore({ url: postgres!.url, identity: { ...identity, deployedAt }, retention: 100, hashWindow: 2, logger: { info: (line) => lines.push(line) } })
  const events = oddEvents(20)
  const sql = new SQL(postgres!.url)
  try {
    await sql.unsafe(`CREATE SCHEMA ${store.schema}`)
    for (const statement of version1Tables((name) => `${store.schema}.${name}`)) await sql.unsafe(statement)
    for (const [key, value] of Object.entries(version1Meta(deployedAt))) await sql.unsafe(`INSERT INTO ${store.schema}.indexer_meta (key, value) VALUES ($1, $2)`, [key, value])
    for (const each of events) await sql.unsafe(`INSERT INTO ${store.schema}.indexer_events VALUES ($1, $2, $3, $4, $5, $6, $7)`, [...version1Row(each)])
    await store.open()
    expect(lines[0]).toBe(
      `indexer: converting PostgreSQL schema ${store.schema} from schema version 1 to 3 (6 events, each kept as its JSON from now on, numbered for the change history); this happens once`,
    )
    expect(lines).toHaveLength(2)
    expect(await store.load(100)).toEqual(state({ block: 30n, hash: hash(30) }, false, events))
    expect(await store.tryLead()).toBe(true)
    await store.commit({ events: [stored(31)], hashes: [], checkpoint: { block: 31n, hash: hash(31) }, truncated: false })
    expect((await store.load(100)).events).toEqual([...events, stored(31)].map((each) => each.event))
    const [version] = await sql.unsafe(`SELECT value FROM ${store.schema}.indexer_meta WHERE key = 'schema_version'`)
    expect(version).toEqual({ value: '3' })
  } finally {
    await store.close()
    await sql.close()
  }
})

/** A version 2 events table (each event its JSON, no change numbers), as a version 2 store holds it. */
const version2Events = (table: (name: string) => string) =>
  `CREATE TABLE ${table('indexer_events')} (block_number BIGINT NOT NULL, log_index INTEGER NOT NULL, block_hash TEXT NOT NULL, event TEXT NOT NULL, PRIMARY KEY (block_number, log_index))`

test('SQLite: a version 2 file is converted when opened: the same events, numbered 1… in chain order, a new history', async () => {
  const path = join(dir, 'version2.sqlite')
  const events = oddEvents(40)
  const db = new Database(path)
  db.exec('CREATE TABLE indexer_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)')
  db.exec(version2Events((name) => name))
  db.exec('CREATE TABLE indexer_block_hashes (block_number BIGINT PRIMARY KEY, hash TEXT NOT NULL)')
  for (const [key, value] of Object.entries({ ...version1Meta(identity.deployedAt), schema_version: '2' })) db.query('INSERT INTO indexer_meta (key, value) VALUES (?, ?)').run(key, value)
  const insert = db.query('INSERT INTO indexer_events VALUES (?, ?, ?, ?)')
  for (const each of [...events].reverse()) insert.run(Number(each.event.blockNumber), each.event.logIndex, each.blockHash, JSON.stringify(each.event))
  db.close()

  const lines: string[] = []
  const store = openSqliteStore({ path, identity, retention: 100, hashWindow: 2, logger: { info: (line) => lines.push(line) } })
  expect(lines[0]).toBe(`indexer: converting ${path} from schema version 2 to 3 (6 events, numbered for the change history); this happens once`)
  const loaded = await store.load(100)
  expect(loaded).toEqual(state({ block: 30n, hash: hash(30) }, false, events, [1, 2, 3, 4, 5, 6]))
  expect(loaded.history).toEqual({ id: expect.stringMatching(/^[0-9a-f]{8}$/), lastSeq: 6, floor: 0, removalsFloor: 0, removals: [] })
  expect(await store.commit({ events: [stored(50)], hashes: [], checkpoint: { block: 50n, hash: hash(50) }, truncated: false })).toEqual({ lastSeq: 7, floor: 0 })
  await store.close()
})

test.skipIf(postgresMissing !== undefined)('PostgreSQL: a version 2 schema is converted when opened; a read-only store (INDEXER_ROLE=reader) refuses a missing schema, then reads without ever writing', async () => {
  const deployedAt = 400n
  const reader = createPostgresStore({ url: postgres!.url, identity: { ...identity, deployedAt }, retention: 100, hashWindow: 2, readOnly: true })
  await expect(reader.open()).rejects.toThrow(`schema ${reader.schema} does not exist yet: start a writer first (an indexer with INDEXER_ROLE unset creates it)`)
  const store = createPostgresStore({ url: postgres!.url, identity: { ...identity, deployedAt }, retention: 100, hashWindow: 2 })
  const events = oddEvents(40)
  const sql = new SQL(postgres!.url)
  try {
    await sql.unsafe(`CREATE SCHEMA ${store.schema}`)
    await sql.unsafe(`CREATE TABLE ${store.schema}.indexer_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`)
    await sql.unsafe(version2Events((name) => `${store.schema}.${name}`))
    await sql.unsafe(`CREATE TABLE ${store.schema}.indexer_block_hashes (block_number BIGINT PRIMARY KEY, hash TEXT NOT NULL)`)
    for (const [key, value] of Object.entries({ ...version1Meta(deployedAt), schema_version: '2' })) await sql.unsafe(`INSERT INTO ${store.schema}.indexer_meta (key, value) VALUES ($1, $2)`, [key, value])
    for (const each of events) await sql.unsafe(`INSERT INTO ${store.schema}.indexer_events VALUES ($1, $2, $3, $4)`, [Number(each.event.blockNumber), each.event.logIndex, each.blockHash, JSON.stringify(each.event)])
    // A reader never converts: it names the version and who converts it.
    const early = createPostgresStore({ url: postgres!.url, identity: { ...identity, deployedAt }, retention: 100, hashWindow: 2, readOnly: true })
    await expect(early.open()).rejects.toThrow('has schema version 2, this build reads 3: a writer of this build (INDEXER_ROLE unset) converts it')
    await store.open()
    expect(await store.load(100)).toEqual(state({ block: 30n, hash: hash(30) }, false, events, [1, 2, 3, 4, 5, 6]))
    await reader.open()
    expect(await reader.tryLead()).toBe(false)
    expect(await reader.load(100)).toEqual(state({ block: 30n, hash: hash(30) }, false, events, [1, 2, 3, 4, 5, 6]))
    await expect(reader.commit({ events: [stored(50)], hashes: [], checkpoint: { block: 50n, hash: hash(50) }, truncated: false })).rejects.toBeInstanceOf(WriterLockLostError)
  } finally {
    await reader.close()
    await store.close()
    await sql.close()
  }
})
