import { Database } from 'bun:sqlite'
import { closeSync, fdatasync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Address } from 'viem'
import { OrderRelayError } from '../../errors/index.ts'
import { createAnswerCodes } from './answerCodes.ts'
import { createJournalObservers } from './journalObservers.ts'
import { takeLock } from './lock.ts'
import { createPendingCallees } from './pendingCallees.ts'
import { createPruneResolved } from './pruneResolved.ts'
import { createRevertLog } from './revertLog.ts'
import { journalVersion, refuseLaterVersion, stampJournalVersion } from './schemaVersion.ts'
import { createSignedWrites } from './signedWrites.ts'
import { createSlotOutcomes } from './slotOutcomes.ts'
import { createSlotReads } from './slotReads.ts'
import { laterIndexes, schema } from './tables.ts'
import { upgradeJournal } from './upgrades.ts'

/** A journal opened for another chain or key. */
export class JournalMismatchError extends OrderRelayError<'JOURNAL_MISMATCH'> {
  override name = 'JournalMismatchError'
  constructor(message: string) {
    super('JOURNAL_MISMATCH', message)
  }
}

/**
 * The relayer's journal (docs/relayer-safety.md): every transaction the gas key
 * signs, written to SQLite before it is broadcast, and what became of it. It is
 * the one store of the key's pending transactions: keyed by nonce, indexed by
 * orderHash. WAL; a signed tx is on disk before it is broadcast (it survives a crash
 * of the process or the machine), a whole batch in one commit and one fsync of the
 * WAL; what became of it is written without an fsync of its own (it survives a crash
 * of the process, and the chain holds it anyway), the outcomes found in one look at
 * the chain in one commit. The code a client was answered is written behind: with the
 * next commit the journal makes anyway (a batch, a look's outcomes), or on its own
 * within `answerDelayMs` when none comes; reads see it at once (from memory until it is
 * written). A crash in between loses only which code the last answers were, so a
 * replay of such an order is answered as if its first answer had not gone out.
 * Holds the process lock, an exclusive lock on a file beside it that the kernel releases with the process, from open to `close` (see lock.ts).
 * @throws JournalLockedError when another live process holds it; JournalMismatchError for another chain or key; JournalVersionError for a file a later version wrote
 */
export function openJournal(
  path: string,
  owner: { chainId: number; address: Address },
  options: {
    /** How long an answer code waits for another commit to ride (default 200 ms). */
    answerDelayMs?: number
    /**
     * With `path` ':memory:' only: this in-memory database rather than a new one. The
     * simulator's (src/simulator/): its bytes outlive a simulated crash, and a commit is
     * on "disk" as soon as it is made.
     */
    database?: Database
  } = {},
) {
  if (options.database && path !== ':memory:') throw new Error('openJournal: a given database is for path :memory: only')
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  // The process lock first: a second process is refused before it reads anything.
  const unlock = takeLock(path)
  const db = options.database ?? new Database(path, { create: true, strict: true })
  db.exec('PRAGMA busy_timeout = 5000')
  let version: number
  try {
    version = refuseLaterVersion(db, path)
  } catch (error) {
    unlock()
    db.close()
    throw error
  }
  db.exec('PRAGMA journal_mode = WAL')
  // NORMAL: a commit survives a crash of the process, not of the machine. The writes
  // that must survive anything (a tx before it is broadcast) are followed by an fsync
  // of the WAL: see `durable`.
  db.exec('PRAGMA synchronous = NORMAL')
  db.exec(schema)
  const ownerText = `${owner.chainId}:${owner.address.toLowerCase()}`
  const stored = db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'owner'").get()
  if (stored && stored.value !== ownerText) {
    unlock()
    db.close()
    throw new JournalMismatchError(`RELAYER_DB ${path} belongs to chain:key ${stored.value}, not ${ownerText}; give each chain and gas key its own journal`)
  }
  if (!stored) db.query("INSERT INTO meta (key, value) VALUES ('owner', ?)").run(ownerText)
  // The version says what to upgrade: a file stamped at this one has nothing left to change.
  const upgraded: string[] = []
  try {
    upgraded.push(...upgradeJournal(db, version))
    if (version < journalVersion) stampJournalVersion(db)
    db.exec(laterIndexes)
  } catch (error) {
    unlock()
    db.close()
    throw error
  }

  const answers = createAnswerCodes(db, options.answerDelayMs ?? 200)
  const walPath = path === ':memory:' ? undefined : `${path}-wal`
  // The WAL stays the same file while the database is open (SQLite rewinds it after a
  // checkpoint, and removes it only when the last connection closes), so one descriptor
  // serves every sync.
  let walFd: number | undefined
  /**
   * Resolves once every write committed so far is on disk: one fdatasync of the WAL
   * (what `synchronous=FULL` does at each commit), run off the event loop. A FULL
   * commit blocked the whole relayer (answers, receipts) for the fsync, which takes
   * tens of milliseconds on a busy disk. One call on a kept descriptor: an open, a sync
   * and a close each waited for a turn of a busy event loop, and cost the journal a
   * quarter of its throughput.
   */
  const durable = (): Promise<void> => {
    if (!walPath) return Promise.resolve()
    try {
      walFd ??= openSync(walPath, 'r')
    } catch (error) {
      return Promise.reject(error)
    }
    const fd = walFd
    return new Promise((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())))
  }
  const callees = createPendingCallees(db)
  const { observers, observe } = createJournalObservers(db)

  return {
    path,
    /** What upgrading a journal of an earlier schema version changed at this open (empty when nothing). */
    upgraded,
    ...createSlotReads(db, answers),
    ...createSignedWrites(db, answers, observers, durable, callees),
    ...createSlotOutcomes(db, answers, observers),
    observe,
    pendingCallees: callees.pendingCallees,
    ...createRevertLog(db),
    ...createPruneResolved(db),
    /** Releases the process lock and closes the file. */
    close() {
      try {
        // Best effort: the answer codes are the one thing written behind (see above); the lock is released whatever.
        answers.close()
        unlock()
      } finally {
        if (walFd !== undefined) closeSync(walFd)
        walFd = undefined
        db.close()
      }
    },
  }
}

export type Journal = ReturnType<typeof openJournal>

/** The journal without the writes that move a slot: what the batch sender, the receipt watcher and the nonce keeper hold (a slot moves through the slot life, submitter/slotLife.ts). */
export type JournalReads = Omit<Journal, 'record' | 'replace' | 'reject' | 'resent' | 'resolve' | 'resolveAll' | 'confirm' | 'moveBlock' | 'reopen'>
