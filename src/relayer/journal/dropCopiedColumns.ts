import type { Database } from 'bun:sqlite'

// A journal at schema version 0 keeps each tx's call and fees twice: `slots.to_address`,
// `data`, `gas` and `txs.max_fee_per_gas`, `max_priority_fee_per_gas` repeat what
// `txs.raw` holds.
const copies = { slots: ['to_address', 'data', 'gas'], txs: ['max_fee_per_gas', 'max_priority_fee_per_gas'] } as const

/**
 * Drops the columns that copy a signed tx's fields from a version 0 journal, in one
 * commit (SQLite rewrites each table once). A relayer that reads only version 0 cannot
 * open the result. Returns the columns dropped (`table.column`).
 */
export function dropCopiedColumns(db: Database): string[] {
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
