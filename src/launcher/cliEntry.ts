import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * The CLI's entry module for bun to run: the bundle the package ships
 * (`dist/cli/main.js`, built by scripts/build-cli.ts), or, in a checkout, the sources
 * (`src/cli/main.ts`).
 *
 * @example
 * cliEntry() // '/home/me/app/node_modules/order-relay/dist/cli/main.js'
 */
export function cliEntry(): string {
  // This module is dist/lib/launcher/cliEntry.js (Node), or src/launcher/cliEntry.ts (Bun, through the
  // package's `bun` condition, where src/cli is not shipped; or a checkout, whose sources come first).
  const inDist = /[\\/]dist[\\/]lib[\\/]launcher[\\/]/.test(fileURLToPath(import.meta.url))
  const candidates = (inDist ? ['../../cli/main.js'] : ['../cli/main.ts', '../../dist/cli/main.js']).map((path) => fileURLToPath(new URL(path, import.meta.url)))
  const found = candidates.find((path) => existsSync(path))
  if (!found) throw new Error(`order-relay's CLI is missing (looked for ${candidates.join(' and ')}): reinstall the package, or run npm run build in a checkout`)
  return found
}
