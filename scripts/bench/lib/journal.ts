import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A throw-away RELAYER_DB for one benchmark relayer (each run is a fresh chain). */
export function scratchJournal() {
  const dir = mkdtempSync(join(tmpdir(), 'order-relay-bench-'))
  return { path: join(dir, 'journal.sqlite'), remove: () => rmSync(dir, { recursive: true, force: true }) }
}
