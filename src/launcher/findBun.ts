import { accessSync, constants, existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { delimiter, dirname, join } from 'node:path'
import { OrderRelayError } from '../errors/index.ts'

/** The command that installs what the CLI and `order-relay/testing` run on, beside the package. */
export const installRuntime = 'npm install --save-dev bun @foundry-rs/anvil'

/** Thrown when no bun can be found; says where it looked and the command that installs it. */
export class BunNotFoundError extends OrderRelayError<'BUN_NOT_FOUND'> {
  override name = 'BunNotFoundError'
  constructor() {
    super(
      'BUN_NOT_FOUND',
      [
        "bun not found: order-relay's servers run on Bun (bun:sqlite, Bun.serve), from the npm package `bun`.",
        'Looked for node_modules/bun beside order-relay and in each parent folder, and for bun on PATH.',
        `Install it (and anvil, the devnet's chain) into your project: ${installRuntime}`,
      ].join('\n'),
    )
  }
}

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/**
 * The bun to run order-relay's servers with, first found of: this process (when Bun
 * runs it), the `bun` npm package as Node resolves it from this module (beside the
 * package, or in any parent node_modules), `bun` on PATH.
 *
 * @throws BunNotFoundError naming the install command
 * @example
 * findBun() // '/home/me/app/node_modules/bun/bin/bun.exe'
 */
export function findBun(): string {
  if (process.versions.bun) return process.execPath
  try {
    const manifest = createRequire(import.meta.url).resolve('bun/package.json')
    // The package names its binary bun.exe on every platform (its `bin` entry).
    const binary = join(dirname(manifest), 'bin', 'bun.exe')
    if (existsSync(binary) && executable(binary)) return binary
  } catch {}
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue
    const candidate = join(dir, 'bun')
    if (existsSync(candidate) && executable(candidate)) return candidate
  }
  throw new BunNotFoundError()
}
