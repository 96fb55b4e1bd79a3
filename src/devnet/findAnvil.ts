import { existsSync, readdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { OrderRelayError } from '../errors/index.ts'

/** Where `findAnvil` looked, for the message that says how to get anvil. */
export type AnvilSearch = { nodeModulesFrom: string[]; foundryBin: string }

/** Thrown when no anvil can be found; says where it looked and exactly how to get one. */
export class AnvilNotFoundError extends OrderRelayError<'ANVIL_NOT_FOUND'> {
  override name = 'AnvilNotFoundError'
  constructor(searched: AnvilSearch) {
    const beside = dirname(process.execPath)
    // Run from the npm package (dist/cli/main.js, `npx order-relay`): anvil belongs in the project beside it.
    const fromPackage = /[\\/]dist[\\/]cli$/.test(import.meta.dir)
    super(
      'ANVIL_NOT_FOUND',
      [
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

/** The platform binary that `@foundry-rs/anvil` installs in a node_modules at or above `start`. */
function anvilInNodeModules(start: string): string | undefined {
  let dir = resolve(start)
  for (;;) {
    const scope = join(dir, 'node_modules', '@foundry-rs')
    if (existsSync(scope)) {
      for (const entry of readdirSync(scope)) {
        const binary = join(scope, entry, 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil')
        if (entry.startsWith('anvil-') && existsSync(binary)) return binary
      }
    }
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

/**
 * The anvil executable, first found of: the platform binary that `@foundry-rs/anvil`
 * installs in a node_modules at or above the working directory, this program (a
 * copied executable: the folder it sits in) or its sources; Foundry's own install
 * folder (`$FOUNDRY_DIR/bin`, default `~/.foundry/bin`, where foundryup puts it);
 * `anvil` on PATH. The platform binary is preferred over the npm shim so that
 * stopping it stops anvil itself (a killed shim could leave anvil running).
 *
 * @throws AnvilNotFoundError naming where it looked and the commands that get anvil
 */
export function findAnvil(): string {
  // A compiled executable's own modules live in a virtual /$bunfs folder: not a place to look.
  const sources = import.meta.dir.startsWith('/$bunfs') ? [] : [import.meta.dir]
  const nodeModulesFrom = [...new Set([process.cwd(), dirname(process.execPath), ...sources].map((dir) => resolve(dir)))]
  for (const start of nodeModulesFrom) {
    const found = anvilInNodeModules(start)
    if (found) return found
  }
  const foundryBin = join(process.env.FOUNDRY_DIR ?? join(homedir(), '.foundry'), 'bin')
  if (existsSync(join(foundryBin, 'anvil'))) return join(foundryBin, 'anvil')
  const onPath = Bun.which('anvil')
  if (onPath) return onPath
  throw new AnvilNotFoundError({ nodeModulesFrom, foundryBin })
}
