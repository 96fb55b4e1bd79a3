import { Database } from 'bun:sqlite'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { OrderRelayError } from '../../errors/index.ts'

/** Another relayer process holds the journal. */
export class JournalLockedError extends OrderRelayError<'JOURNAL_LOCKED'> {
  override name = 'JournalLockedError'
  constructor(message: string) {
    super('JOURNAL_LOCKED', message)
  }
}

type Holder = { pid: number; host: string; since: number }

/**
 * The lock files this process holds, kept reachable until `unlock`: a Database that
 * nothing references is closed when it is garbage-collected, and its lock would go with
 * it while the process still runs.
 */
const held = new Set<Database>()

/** The holder file beside the journal: who holds its lock, for the message another process gives. */
const holderPath = (path: string) => `${path}.holder`

/**
 * One process per journal (one process per gas key), held by the kernel: a lock file
 * beside the journal (`<path>.lock`, an empty SQLite database) is opened in SQLite's
 * exclusive locking mode and an exclusive transaction begun and committed at once, so this
 * process keeps the file's exclusive lock until `unlock` (or until it ends, however it
 * ends: the kernel drops a dead process's locks with its descriptors), whether or not
 * the journal that took it is still referenced. No two processes
 * can hold it, whichever host or pid they have. The journal itself stays an ordinary
 * database. The holder's pid, host and start are written beside it (`<path>.holder`) only
 * so that a refused process can name it.
 * @throws JournalLockedError naming the holder (as its holder file says)
 */
export function takeLock(path: string): () => void {
  if (path === ':memory:') return () => {}
  const lock = new Database(`${path}.lock`, { create: true })
  try {
    lock.exec('PRAGMA locking_mode = EXCLUSIVE')
    lock.exec('BEGIN EXCLUSIVE')
    lock.exec('COMMIT')
  } catch (error) {
    lock.close()
    if (!/locked|busy/i.test((error as Error).message)) throw error
    throw new JournalLockedError(`RELAYER_DB ${path} is in use by ${describeHolder(path)}; run one relayer process per gas key, or stop that one first`)
  }
  held.add(lock)
  const me: Holder = { pid: process.pid, host: hostname(), since: Date.now() }
  try {
    writeFileSync(holderPath(path), `${JSON.stringify(me)}\n`)
  } catch {}
  return () => {
    held.delete(lock)
    lock.close()
    try {
      const written = JSON.parse(readFileSync(holderPath(path), 'utf8')) as Holder
      if (written.pid === me.pid && written.host === me.host && written.since === me.since) rmSync(holderPath(path), { force: true })
    } catch {}
  }
}

/**
 * Who holds the journal's lock now, without taking it: undefined when nobody does (or no
 * lock file exists: no relayer ever opened this journal here), else the holder as its
 * holder file names it. It opens the lock file read-only and reads it once, which a
 * holder's exclusive lock refuses; it creates no file and leaves a holder's lock as it is.
 * A relayer starting in the instant of that read is refused as if another held it.
 *
 * @example
 * const holder = lockHolder('.order-relay/relayer-421614-0xabc….sqlite')
 * if (holder) console.log(`in use by ${holder}`)
 */
export function lockHolder(path: string): string | undefined {
  if (path === ':memory:' || !existsSync(`${path}.lock`)) return undefined
  const lock = new Database(`${path}.lock`, { readonly: true })
  try {
    lock.query('SELECT count(*) FROM sqlite_master').get()
    return undefined
  } catch (error) {
    if (!/locked|busy/i.test((error as Error).message)) throw error
    return describeHolder(path)
  } finally {
    lock.close()
  }
}

/** `relayer process 123 on host (since …)` from the holder file, or a plain description when it cannot be read. */
function describeHolder(path: string): string {
  try {
    const holder = JSON.parse(readFileSync(holderPath(path), 'utf8')) as Holder
    return `relayer process ${holder.pid} on ${holder.host} (since ${new Date(holder.since).toISOString()})`
  } catch {
    return 'another relayer process (its lock is held; no holder file names it)'
  }
}
