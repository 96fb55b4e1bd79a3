// `order-relay init [DIR]`: scaffolds a contract developer's project from the package's own
// examples/contract-e2e. Node-only (no Bun API): the package's bin runs it under Node, since a
// new project has no bun yet (bin/order-relay.js), and the CLI runs it under Bun (commands/init.ts).
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The template inside the package: the example `.ci/run` tests, so a scaffold is a tested project. */
export const templatePath = 'examples/contract-e2e'

/** What `init` writes that the template does not carry: npm leaves `.gitignore` files out of a package. */
const gitignore = 'node_modules/\nout/\ncache/\n'

export const initUsage = '[DIR]'
export const initSummary = 'scaffold a forge project whose adapter is tested through order-relay (bun test and Vitest)'
export const initArguments = ['DIR              the folder to create or fill; empty or new (default: the current folder)']

export type InitIo = { out: (line: string) => void; err: (line: string) => void }

/** The package's root (the folder with package.json and the template), from where this module runs. */
export function packageRoot(from: string = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, templatePath, 'package.json')) && existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) return undefined
  }
}

/** An npm package name from a folder's name: lower case, only the characters npm allows. */
export function projectName(dir: string): string {
  const name = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|-+$/g, '')
  return name || 'contract-e2e'
}

/**
 * Copies the template into `dir` (created when missing) with the project's name and this
 * package's version, and prints the next steps. Returns the exit code: 0 written, 2 a
 * usage error (a non-empty folder, extra arguments), 1 no template beside this module.
 *
 * @example
 * process.exitCode = runInit(['my-adapter'], { out: console.log, err: console.error })
 */
export function runInit(argv: readonly string[], io: InitIo, root: string | null = packageRoot() ?? null): number {
  const positionals = argv.filter((arg) => !arg.startsWith('-'))
  const flags = argv.filter((arg) => arg.startsWith('-'))
  if (flags.length > 0 || positionals.length > 1) {
    io.err(`order-relay init: ${flags.length > 0 ? `unknown option ${flags[0]}` : 'give at most one DIR'}`)
    io.err(`Usage: order-relay init ${initUsage}`)
    return 2
  }
  const dir = positionals[0] ?? '.'
  const target = resolve(dir)
  if (!root) {
    io.err('order-relay init: the project template ships with the npm package, not with this executable: run `npx order-relay init` (npm package order-relay)')
    return 1
  }
  if (existsSync(target)) {
    const entries = readdirSync(target)
    if (entries.length > 0) {
      io.err(`order-relay init: ${dir} is not empty (${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}): init only writes into an empty or new folder.`)
      io.err(`  Give a new folder (npx order-relay init my-adapter), or copy what you need from ${join(root, templatePath)}`)
      return 2
    }
  }
  const template = join(root, templatePath)
  const version: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version
  mkdirSync(target, { recursive: true })
  cpSync(template, target, { recursive: true, filter: (source) => !/[\\/](node_modules|out|cache|\.gitignore)$/.test(source) })
  const manifestPath = join(target, 'package.json')
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))
  manifest.name = projectName(target)
  manifest.description = 'An adapter of my own, settled through order-relay\'s relayer from bun test and from Vitest'
  manifest.devDependencies['order-relay'] = `^${version}`
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`)
  writeFileSync(join(target, '.gitignore'), gitignore)
  const where = relative(process.cwd(), target)
  io.out(`order-relay init: wrote ${manifest.name} into ${where || '.'} (src/TicketAdapter.sol, test/, foundry.toml, package.json)`)
  io.out('Next:')
  if (where) io.out(`  cd ${where}`)
  io.out('  npm install')
  io.out('  npm test          # forge build, then bun test and Vitest: one order settles, refusals by name')
  return 0
}
