import { existsSync, readdirSync, realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { OrderRelayError } from '../errors/index.ts'

/**
 * Where `findAnvil` looked, for the message that says how to get anvil. `skipped`: the
 * `@foundry-rs/anvil` package folder found without a binary (its install script did not run).
 */
export type AnvilSearch = { nodeModulesFrom: string[]; foundryBin: string; skipped?: string | undefined }

/**
 * The command that runs `@foundry-rs/anvil`'s skipped install script: npm 12 runs a
 * dependency's install script only when package.json's `allowScripts` approves it, and
 * `npm rebuild` runs it once approved.
 */
export const approveAnvilScript = 'npm approve-scripts @foundry-rs/anvil && npm rebuild @foundry-rs/anvil'

/** The per-platform package of `@foundry-rs/anvil` for this machine, as its install script names it. */
const platformPackage = () => `@foundry-rs/anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`

/**
 * Thrown when no anvil can be found; says where it looked and exactly how to get one.
 * When the `@foundry-rs/anvil` package is installed without a binary, says that its
 * install script did not run and gives the command that runs it.
 */
export class AnvilNotFoundError extends OrderRelayError<'ANVIL_NOT_FOUND'> {
  override name = 'AnvilNotFoundError'
  constructor(searched: AnvilSearch) {
    const beside = dirname(process.execPath)
    // Run from the npm package (dist/cli/main.js, `npx order-relay`): anvil belongs in the project beside it.
    const fromPackage = /[\\/]dist[\\/]cli$/.test(import.meta.dir)
    const skipped = searched.skipped
    super(
      'ANVIL_NOT_FOUND',
      skipped
        ? [
            `anvil's install script did not run: ${skipped} holds no anvil binary, and ${platformPackage()} (the per-platform package that brings it) is not installed.`,
            "The package's postinstall fetches the binary from the npm registry then; npm 12 runs a dependency's install script only when package.json's allowScripts approves it (and no npm runs one under --ignore-scripts).",
            `Approve and run it, in ${dirname(dirname(dirname(skipped)))}: ${approveAnvilScript}`,
          ].join('\n')
        : [
            'anvil not found: the devnet runs anvil, Foundry\'s local chain. Looked for',
            `  node_modules/@foundry-rs/anvil-<platform>/bin/anvil in ${searched.nodeModulesFrom.join(', ')} and each parent folder,`,
            `  ${searched.foundryBin}/anvil, and every folder on PATH.`,
            'Get it with either of:',
            fromPackage
              ? '  npm install --save-dev @foundry-rs/anvil   (from the npm registry, into your project beside order-relay)'
              : `  npm install --prefix ${beside} @foundry-rs/anvil   (from the npm registry, beside this program; needs Node.js)`,
            `  curl -L https://foundry.paradigm.xyz | bash && ${searched.foundryBin}/foundryup   (Foundry's installer, into ${searched.foundryBin})`,
            'then run the same command again.',
          ].join('\n'),
    )
  }
}

/**
 * The anvil that `@foundry-rs/anvil` installs in the nearest node_modules at or above
 * `start` holding one: the per-platform package's binary, or the one the package's
 * install script fetched into its own folder when that package was missing. `skipped`:
 * the first `@foundry-rs/anvil` folder seen with neither.
 *
 * @example
 * anvilInNodeModules('/home/me/app') // { binary: '/home/me/app/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil' }
 */
export function anvilInNodeModules(start: string): { binary?: string; skipped?: string } {
  const exe = process.platform === 'win32' ? 'anvil.exe' : 'anvil'
  let skipped: string | undefined
  let dir = resolve(start)
  for (;;) {
    const scope = join(dir, 'node_modules', '@foundry-rs')
    if (existsSync(scope)) {
      for (const entry of readdirSync(scope)) {
        const binary = join(scope, entry, 'bin', exe)
        if (entry.startsWith('anvil-') && existsSync(binary)) return { binary }
      }
      const fetched = join(scope, 'anvil', exe)
      if (existsSync(fetched)) return { binary: fetched }
      if (!skipped && existsSync(join(scope, 'anvil', 'package.json'))) skipped = join(scope, 'anvil')
    }
    const parent = dirname(dir)
    if (parent === dir) return { skipped }
    dir = parent
  }
}

/**
 * The anvil executable among the places given, first found of: `anvilInNodeModules` from
 * each of `nodeModulesFrom`, `foundryBin`/anvil, `onPath` (for `@foundry-rs/anvil`'s Node
 * shim, the binary it would start).
 *
 * @throws AnvilNotFoundError naming where it looked, or the command that runs a skipped install script
 * @example
 * locateAnvil({ nodeModulesFrom: [process.cwd()], foundryBin: '/home/me/.foundry/bin', onPath: null })
 */
export function locateAnvil(where: { nodeModulesFrom: string[]; foundryBin: string; onPath: string | null }): string {
  let skipped: string | undefined
  for (const start of where.nodeModulesFrom) {
    const found = anvilInNodeModules(start)
    if (found.binary) return found.binary
    skipped ??= found.skipped
  }
  if (existsSync(join(where.foundryBin, 'anvil'))) return join(where.foundryBin, 'anvil')
  if (where.onPath) {
    // npx and npm scripts put node_modules/.bin on PATH: its anvil is @foundry-rs/anvil's Node
    // shim (bin.mjs), which only starts the binary beside it. Take that binary, or report it missing.
    const real = realpathSync(where.onPath)
    if (!/[\\/]@foundry-rs[\\/]anvil[\\/]bin\.mjs$/.test(real)) return where.onPath
    const behind = anvilInNodeModules(dirname(dirname(dirname(dirname(real)))))
    if (behind.binary) return behind.binary
    skipped ??= behind.skipped
  }
  throw new AnvilNotFoundError({ nodeModulesFrom: where.nodeModulesFrom, foundryBin: where.foundryBin, skipped })
}

/**
 * The anvil executable, first found of: the binary that `@foundry-rs/anvil`
 * installs in a node_modules at or above the working directory, this program (a
 * copied executable: the folder it sits in) or its sources; Foundry's own install
 * folder (`$FOUNDRY_DIR/bin`, default `~/.foundry/bin`, where foundryup puts it);
 * `anvil` on PATH. The platform binary is preferred over the npm shim so that
 * stopping it stops anvil itself (a killed shim could leave anvil running).
 *
 * @throws AnvilNotFoundError naming where it looked and the commands that get anvil, or the command that runs its skipped install script
 */
export function findAnvil(): string {
  // A compiled executable's own modules live in a virtual /$bunfs folder: not a place to look.
  const sources = import.meta.dir.startsWith('/$bunfs') ? [] : [import.meta.dir]
  const nodeModulesFrom = [...new Set([process.cwd(), dirname(process.execPath), ...sources].map((dir) => resolve(dir)))]
  const foundryBin = join(process.env.FOUNDRY_DIR ?? join(homedir(), '.foundry'), 'bin')
  return locateAnvil({ nodeModulesFrom, foundryBin, onPath: Bun.which('anvil') })
}
