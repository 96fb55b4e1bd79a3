import type { Database } from 'bun:sqlite'
import { hostname } from 'node:os'

/** Another live relayer process holds the journal. */
export class JournalLockedError extends Error {
  override name = 'JournalLockedError'
}

type Holder = { pid: number; host: string; since: number }

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as { code?: string }).code === 'EPERM'
  }
}

/**
 * One process per journal (one process per gas key): the holder's pid and host are
 * written in the journal itself, inside an immediate transaction so two processes
 * starting together cannot both win. A holder on this host whose pid is gone (a
 * crash, `kill -9`) is taken over; a holder on another host cannot be checked and
 * is refused, naming it.
 * @throws JournalLockedError naming the other process
 */
export function takeLock(db: Database, path: string): () => void {
  const me: Holder = { pid: process.pid, host: hostname(), since: Date.now() }
  db.transaction(() => {
    const row = db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'holder'").get()
    if (row) {
      const holder = JSON.parse(row.value) as Holder
      const mine = holder.pid === me.pid && holder.host === me.host
      if (!mine && (holder.host !== me.host || alive(holder.pid))) {
        throw new JournalLockedError(
          `RELAYER_DB ${path} is in use by relayer process ${holder.pid} on ${holder.host} (since ${new Date(holder.since).toISOString()}); ` +
            'run one relayer process per gas key, or stop that one first',
        )
      }
    }
    db.query("INSERT OR REPLACE INTO meta (key, value) VALUES ('holder', ?)").run(JSON.stringify(me))
  }).immediate()
  return () => {
    db.query("DELETE FROM meta WHERE key = 'holder' AND value = ?").run(JSON.stringify(me))
  }
}
