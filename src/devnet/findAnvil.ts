import { existsSync, readdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/** Thrown when no anvil can be found; says how to get one. */
export class AnvilNotFoundError extends Error {
  override name = 'AnvilNotFoundError'
  constructor() {
    super('anvil not found: install it with `npm install @foundry-rs/anvil` (in this project: `npm install`), or put anvil on PATH')
  }
}

/**
 * The anvil executable: the platform binary that `@foundry-rs/anvil` installs in a
 * node_modules above the working directory or this program, else `anvil` on PATH.
 * The platform binary is preferred over the npm shim so that stopping it stops anvil
 * itself (a killed shim could leave anvil running).
 */
export function findAnvil(): string {
  const starts = [process.cwd(), dirname(process.execPath), import.meta.dir].filter(Boolean)
  for (const start of starts) {
    let dir = resolve(start)
    for (;;) {
      const scope = join(dir, 'node_modules', '@foundry-rs')
      if (existsSync(scope)) {
        for (const entry of readdirSync(scope)) {
          const binary = join(scope, entry, 'bin', 'anvil')
          if (entry.startsWith('anvil-') && existsSync(binary)) return binary
        }
      }
      const parent = dirname(dir)
      if (parent === dir) break
      dir = parent
    }
  }
  const onPath = Bun.which('anvil')
  if (onPath) return onPath
  throw new AnvilNotFoundError()
}
