import type { Database } from 'bun:sqlite'
import { OrderRelayError } from '../../errors/index.ts'

/**
 * The journal's schema version, kept in SQLite's `user_version`:
 * - 0: each tx's call and fees copied beside its signed bytes (upgrades.ts drops them);
 * - 2: the signed tx the one record of its call and fees;
 * - 3: each slot keeps what its order earned and its tx cost; reverts are kept as events
 *   (upgrades.ts);
 * - 4: each slot keeps its block's hash and whether it is confirmed (upgrades.ts).
 * A file at a lower number is upgraded step by step at open. A relayer that finds a higher
 * number refuses the file: a schema it does not know could be misread, and the key's
 * pending txs with it.
 */
export const journalVersion = 4

/** A journal written by a later version, whose schema this one cannot be sure to read. */
export class JournalVersionError extends OrderRelayError<'JOURNAL_VERSION'> {
  override name = 'JournalVersionError'
  constructor(message: string) {
    super('JOURNAL_VERSION', message)
  }
}

/** The version the file says it was written at (0 when none: a new file, or one written at version 0). */
function storedJournalVersion(db: Database): number {
  return db.query<{ user_version: number }, []>('PRAGMA user_version').get()?.user_version ?? 0
}

/**
 * Throws JournalVersionError for a file written at a later version. Called before
 * anything is written to the file (its owner, the lock, the tables), so a refused file is
 * left as it was.
 */
export function refuseLaterVersion(db: Database, path: string): number {
  const stored = storedJournalVersion(db)
  if (stored > journalVersion) {
    throw new JournalVersionError(
      `RELAYER_DB ${path} was written by a later order-relay (journal version ${stored}; this one reads up to ${journalVersion}); run that later version on it, or give this one a journal of its own after checking the gas key's pending txs on chain`,
    )
  }
  return stored
}

/** Marks the file as written at this version (after any upgrade: a crash in between leaves the upgrade done and the mark for the next start). */
export function stampJournalVersion(db: Database): void {
  db.exec(`PRAGMA user_version = ${journalVersion}`)
}
