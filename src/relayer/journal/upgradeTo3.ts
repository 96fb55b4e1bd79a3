import type { Database } from 'bun:sqlite'

/** How long a consumer was refused when the journal kept only each refusal's end (RELAYER_REVERT_COOLDOWN_MS's default). */
const earlierCooldownMs = 600_000

/**
 * Upgrades a journal of schema version 2: each slot gains what its order earned and its tx
 * cost (`fee_amount`, `fee_value_wei`, `spent_wei`, `mined_at`); the consumers' cool-downs become the
 * reverts they came from (`reverts`, which adapters' and pay tokens' cool-downs count
 * too), each dated its end minus the default cool-down. One commit. Returns what changed,
 * for the start-up line.
 */
export function upgradeTo3(db: Database): string[] {
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
