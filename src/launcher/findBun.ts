import { accessSync, constants, existsSync, openSync, readSync, closeSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { OrderRelayError } from '../errors/index.ts'

/** The command that installs what the CLI and `order-relay/testing` run on, beside the package. */
export const installRuntime = 'npm install --save-dev bun @foundry-rs/anvil'

/**
 * The command that runs the `bun` package's skipped install script: npm 12 runs a
 * dependency's install script only when package.json's `allowScripts` approves it, and
 * `npm rebuild` runs it once approved.
 */
export const approveBunScript = 'npm approve-scripts bun && npm rebuild bun'

/**
 * Where the `bun` npm package was found with its install script not run: `packageDir`
 * (node_modules/bun) and `projectDir`, the folder whose node_modules holds it.
 */
export type SkippedBunScript = { packageDir: string; projectDir: string }

/**
 * Thrown when no bun can be found; says where it looked and the command that installs it.
 * With `skipped`, the `bun` package is installed but its install script never put the
 * binary in place: the message says so and gives the command that runs it.
 */
export class BunNotFoundError extends OrderRelayError<'BUN_NOT_FOUND'> {
  override name = 'BunNotFoundError'
  constructor(skipped?: SkippedBunScript) {
    super(
      'BUN_NOT_FOUND',
      (skipped
        ? [
            `bun's install script did not run: ${join(skipped.packageDir, 'bin', 'bun.exe')} is the placeholder the npm package \`bun\` ships until its postinstall puts the real binary there.`,
            "npm 12 runs a dependency's install script only when package.json's allowScripts approves it (and no npm runs one under --ignore-scripts).",
            `Approve and run it, in ${skipped.projectDir}: ${approveBunScript}`,
          ]
        : [
            "bun not found: order-relay's servers run on Bun (bun:sqlite, Bun.serve), from the npm package `bun`.",
            'Looked for node_modules/bun beside order-relay and in each parent folder, and for bun on PATH.',
            `Install it (and anvil, the devnet's chain) into your project: ${installRuntime}`,
          ]
      ).join('\n'),
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
 * True when `binary` is the stand-in the `bun` package ships in bin/bun.exe: a short
 * shell script that says "Bun's postinstall script was not run" and exits 1, replaced by
 * the real executable (about 100 MB) when the package's install script runs.
 */
function isPlaceholder(binary: string): boolean {
  if (statSync(binary).size > 64 * 1024) return false
  const head = Buffer.alloc(4096)
  const fd = openSync(binary, 'r')
  try {
    const read = readSync(fd, head, 0, head.length, 0)
    return head.subarray(0, read).toString('latin1').includes('postinstall script was not run')
  } finally {
    closeSync(fd)
  }
}

/**
 * The binary of the `bun` npm package as Node resolves it from `fromDir` (its
 * node_modules or any parent's), or undefined when no `bun` package is there.
 *
 * @throws BunNotFoundError saying the install script did not run, when the package holds only its placeholder
 * @example
 * bunFromNodeModules('/home/me/app') // '/home/me/app/node_modules/bun/bin/bun.exe'
 */
export function bunFromNodeModules(fromDir: string): string | undefined {
  let manifest: string
  try {
    manifest = createRequire(join(fromDir, 'noop.js')).resolve('bun/package.json')
  } catch {
    return undefined
  }
  // The package names its binary bun.exe on every platform (its `bin` entry).
  const packageDir = dirname(manifest)
  const binary = join(packageDir, 'bin', 'bun.exe')
  if (!existsSync(binary)) return undefined
  if (isPlaceholder(binary)) throw new BunNotFoundError({ packageDir, projectDir: dirname(dirname(packageDir)) })
  return executable(binary) ? binary : undefined
}

/**
 * The bun to run order-relay's servers with, first found of: this process (when Bun
 * runs it), the `bun` npm package as Node resolves it from this module (beside the
 * package, or in any parent node_modules), `bun` on PATH.
 *
 * @throws BunNotFoundError naming the install command, or the command that runs a skipped install script
 * @example
 * findBun() // '/home/me/app/node_modules/bun/bin/bun.exe'
 */
export function findBun(): string {
  if (process.versions.bun) return process.execPath
  const fromPackage = bunFromNodeModules(dirname(fileURLToPath(import.meta.url)))
  if (fromPackage) return fromPackage
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue
    const candidate = join(dir, 'bun')
    if (existsSync(candidate) && executable(candidate)) return candidate
  }
  throw new BunNotFoundError()
}
