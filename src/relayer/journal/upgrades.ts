import type { Database } from 'bun:sqlite'

/**
 * The journal's schema upgrades, one function per step (schemaVersion.ts lists the
 * versions). `upgradeJournal` runs the steps a file at `version` needs, in order; each
 * returns what it changed, for the start-up line.
 */
export function upgradeJournal(db: Database, version: number): string[] {
  const upgraded: string[] = []
  if (version < 2) upgraded.push(...dropCopiedColumns(db).map((column) => `${column} dropped`))
  if (version < 3) upgraded.push(...upgradeTo3(db))
  if (version < 4) upgraded.push(...upgradeTo4(db))
  return upgraded
}

// A journal at schema version 0 keeps each tx's call and fees twice: `slots.to_address`,
// `data`, `gas` and `txs.max_fee_per_gas`, `max_priority_fee_per_gas` repeat what
// `txs.raw` holds.
const copies = { slots: ['to_address', 'data', 'gas'], txs: ['max_fee_per_gas', 'max_priority_fee_per_gas'] } as const

/**
 * Drops the columns that copy a signed tx's fields from a version 0 journal, in one
 * commit (SQLite rewrites each table once). A relayer that reads only version 0 cannot
 * open the result. Returns the columns dropped (`table.column`).
 */
function dropCopiedColumns(db: Database): string[] {
  const dropped: string[] = []
  const drops: string[] = []
  for (const [table, columns] of Object.entries(copies)) {
    const present = new Set(db.query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${table}')`).all().map(({ name }) => name))
    for (const column of columns) {
      if (!present.has(column)) continue
      drops.push(`ALTER TABLE ${table} DROP COLUMN ${column}`)
      dropped.push(`${table}.${column}`)
    }
  }
  if (drops.length === 0) return dropped
  db.transaction(() => {
    for (const drop of drops) db.exec(drop)
    // A slot finds its call through its tx_hash, compared exactly with txs.hash (written
    // lower-case); a version 0 journal may hold a mined tx's hash as the node gave it.
    db.exec('UPDATE slots SET tx_hash = lower(tx_hash)')
  })()
  return dropped
}

/** How long a consumer was refused when the journal kept only each refusal's end (RELAYER_REVERT_COOLDOWN_MS's default). */
const earlierCooldownMs = 600_000

/**
 * Upgrades a journal of schema version 2: each slot gains what its order earned and its tx
 * cost (`fee_amount`, `fee_value_wei`, `spent_wei`, `mined_at`); the consumers' cool-downs become the
 * reverts they came from (`reverts`, which adapters' and pay tokens' cool-downs count
 * too), each dated its end minus the default cool-down. One commit. Returns what changed,
 * for the start-up line.
 */
function upgradeTo3(db: Database): string[] {
  const changed: string[] = []
  db.transaction(() => {
    const present = new Set(db.query<{ name: string }, []>("SELECT name FROM pragma_table_info('slots')").all().map(({ name }) => name))
    for (const [column, type] of [
      ['fee_amount', 'TEXT'],
      ['fee_value_wei', 'TEXT'],
      ['spent_wei', 'TEXT'],
      ['mined_at', 'INTEGER'],
    ] as const) {
      if (present.has(column)) continue
      db.exec(`ALTER TABLE slots ADD COLUMN ${column} ${type}`)
      changed.push(`slots.${column} added`)
    }
    const hasCooldowns = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'cooldowns'").get()!.n > 0
    if (hasCooldowns) {
      db.exec(`INSERT INTO reverts (at, consumer, adapter, pay_token, tx_hash) SELECT until - ${earlierCooldownMs}, consumer, NULL, NULL, tx_hash FROM cooldowns`)
      db.exec('DROP TABLE cooldowns')
      changed.push('cooldowns moved to reverts')
    }
    // The process lock is the kernel's (lock.ts): a holder row written in the file is not read.
    db.exec("DELETE FROM meta WHERE key = 'holder'")
  })()
  return changed
}

/**
 * Upgrades a journal of schema version 3: each slot gains the hash of its tx's block and
 * whether that block is deep enough to be final (`block_hash`, `confirmed`); a slot
 * resolved before the upgrade counts as confirmed (its block was not kept to check).
 * One commit. Returns what changed, for the start-up line.
 */
function upgradeTo4(db: Database): string[] {
  const changed: string[] = []
  db.transaction(() => {
    const present = new Set(db.query<{ name: string }, []>("SELECT name FROM pragma_table_info('slots')").all().map(({ name }) => name))
    if (!present.has('block_hash')) {
      db.exec('ALTER TABLE slots ADD COLUMN block_hash TEXT')
      changed.push('slots.block_hash added')
    }
    if (!present.has('confirmed')) {
      db.exec('ALTER TABLE slots ADD COLUMN confirmed INTEGER NOT NULL DEFAULT 0')
      db.exec("UPDATE slots SET confirmed = 1 WHERE status != 'pending'")
      changed.push('slots.confirmed added')
    }
  })()
  return changed
}
