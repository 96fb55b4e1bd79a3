import { resolve } from 'node:path'
import { lockHolder } from '../relayer/journal/index.ts'
import { type CheckResult, fail, pass } from './checkResult.ts'
import { checkWritableFile } from './writableFile.ts'

/**
 * The journal (RELAYER_DB, or the default file per chain and key) can be opened for
 * writing; nothing is created (writableFile.ts).
 */
export function checkJournalWritable(path: string, variable: string): CheckResult {
  if (path === ':memory:') return pass('journal', `${variable}=:memory: keeps nothing on disk (a restart forgets the key's pending txs)`)
  return checkWritableFile('journal', path, variable, 'the relayer')
}

/**
 * No running relayer holds the journal's lock (lock.ts `lockHolder`: looked at, never
 * taken, so a running relayer keeps it).
 */
export function checkJournalLock(path: string, variable: string): CheckResult {
  if (path === ':memory:') return pass('journal lock', 'an in-memory journal has no lock')
  const holder = lockHolder(resolve(path))
  if (holder) {
    return fail('journal lock', `${variable} ${resolve(path)} is in use by ${holder}`, 'stop that relayer first (one relayer process per gas key), or give this one its own gas key and journal')
  }
  return pass('journal lock', 'no running relayer holds it')
}
