import { existsSync, realpathSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'

/** Quotes a word for a POSIX shell when it needs it. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}

/** True inside the executable `bun build --compile` made (not bun running the sources). */
export function isCompiled(): boolean {
  return !/^(bun|node)(\.exe)?$/.test(basename(process.execPath))
}

const sameFile = (a: string, b: string) => {
  try {
    return realpathSync(a) === realpathSync(b)
  } catch {
    return false
  }
}

/**
 * How to start this program again from any directory, for the next steps and hints
 * it prints: `order-relay` when that name on PATH is this executable, else the
 * executable's absolute path; from the sources, the repository's own bun and
 * `src/cli/main.ts`, both absolute (`npx bun src/cli/main.ts` works only in the
 * repository: elsewhere npx tries to download bun); from the npm package, `npx
 * order-relay` (its bin, in the project that installed it).
 *
 * @example
 * invocation() // '/home/me/order-relay/node_modules/.bin/bun /home/me/order-relay/src/cli/main.ts'
 */
export function invocation(): string {
  // The npm package's bundle (dist/cli/main.js, started by its `order-relay` bin).
  if (/[\\/]dist[\\/]cli$/.test(import.meta.dir)) return 'npx order-relay'
  if (isCompiled()) {
    const onPath = Bun.which('order-relay')
    return onPath && sameFile(onPath, process.execPath) ? 'order-relay' : shellQuote(process.execPath)
  }
  const root = resolve(import.meta.dir, '../../..')
  const localBun = join(root, 'node_modules', '.bin', 'bun')
  const bun = existsSync(localBun) ? localBun : process.execPath
  return `${shellQuote(bun)} ${shellQuote(join(root, 'src', 'cli', 'main.ts'))}`
}
