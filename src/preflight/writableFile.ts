import { accessSync, constants, existsSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { type CheckResult, fail, pass } from './checkResult.ts'

/**
 * A SQLite file a service keeps (the relayer's journal, the indexer's store) can be
 * opened for writing: the file when it exists, else the folder it would be created in
 * (or the nearest folder that exists, under which the service creates the rest).
 * Nothing is created. `owner` says who creates it, for the messages.
 */
export function checkWritableFile(name: string, path: string, variable: string, owner: string): CheckResult {
  const full = resolve(path)
  if (existsSync(full)) {
    if (!statSync(full).isFile()) return fail(name, `${variable} ${full} is not a file`, `set ${variable} to a file path (it is one SQLite file)`)
    try {
      accessSync(full, constants.R_OK | constants.W_OK)
    } catch {
      return fail(name, `${variable} ${full} cannot be opened for writing`, `give ${owner}'s user read and write access to ${full}`)
    }
    return pass(name, `${full} exists and is writable`)
  }
  let folder = dirname(full)
  while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder)
  if (!statSync(folder).isDirectory()) {
    return fail(name, `${variable} ${full} cannot be created: ${folder} is a file, not a folder`, `set ${variable} to a path under a folder`)
  }
  try {
    accessSync(folder, constants.W_OK | constants.X_OK)
  } catch {
    return fail(name, `${variable} ${full} cannot be created: ${folder} is not writable`, `give ${owner}'s user write access to ${folder}, or set ${variable} to a writable path`)
  }
  return pass(name, `${full} does not exist yet; ${owner} creates it at start (${folder} is writable)`)
}
