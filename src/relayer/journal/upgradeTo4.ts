import type { Database } from 'bun:sqlite'

/**
 * Upgrades a journal of schema version 3: each slot gains the hash of its tx's block and
 * whether that block is deep enough to be final (`block_hash`, `confirmed`); a slot
 * resolved before the upgrade counts as confirmed (its block was not kept to check).
 * One commit. Returns what changed, for the start-up line.
 */
export function upgradeTo4(db: Database): string[] {
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
