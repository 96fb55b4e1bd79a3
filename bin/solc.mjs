#!/usr/bin/env node
// solc for forge from npm: `solc = "node_modules/order-relay/bin/solc.mjs"` in foundry.toml.
// forge from npm cannot download a native solc offline or behind a firewall; this runs
// solc-js (the `solc` npm package, the version the project installs) instead. It speaks
// the part of solc's command line forge uses: `--version`, and `--standard-json` with the
// JSON input on stdin, resolving imports from disk (relative to --base-path /
// --include-path, restricted to --allow-paths) the way native solc does.
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
const option = (name) => {
  const values = []
  for (let i = 0; i < args.length; i++) if (args[i] === name && args[i + 1]) values.push(args[i + 1])
  return values
}
const basePath = option('--base-path')[0] ?? process.cwd()
const solc = loadSolc()

if (args.includes('--version')) {
  process.stdout.write(`solc, the solidity compiler commandline interface\nVersion: ${solc.version()}\n`)
  process.exit(0)
}
if (!args.includes('--standard-json')) {
  process.stderr.write('order-relay solc: only --version and --standard-json are supported (this wraps solc-js for forge)\n')
  process.exit(2)
}

/**
 * The project's own solc-js: resolved from the folder forge builds (--base-path), then the
 * working directory, then beside this file, so the compiler version is the one the
 * project pins in its devDependencies.
 */
function loadSolc() {
  const here = dirname(fileURLToPath(import.meta.url))
  for (const from of [basePath, process.cwd(), here]) {
    try {
      return createRequire(join(resolve(from), 'package.json'))('solc')
    } catch (error) {
      if (error?.code !== 'MODULE_NOT_FOUND') throw error
    }
  }
  let suggested = ''
  try {
    suggested = JSON.parse(readFileSync(join(here, '..', 'package.json'), 'utf8')).devDependencies?.solc ?? ''
  } catch {}
  process.stderr.write(
    `order-relay solc: the solc npm package (solc-js) is not installed in ${resolve(basePath)}: ` +
      `npm install --save-dev solc@${suggested || '<version>'} (or the version your pragmas ask for)\n`,
  )
  process.exit(1)
}

// Paths compared by their real location: node_modules may be a symlink (a workspace, a pnpm
// store), and forge passes --allow-paths already resolved.
const real = (path) => {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}
const roots = [basePath, ...option('--include-path')]
const allowed = [...roots, ...option('--allow-paths').flatMap((p) => p.split(','))].filter(Boolean).map(real)
const isAllowed = (file) => {
  const path = real(file)
  return allowed.some((root) => path === root || path.startsWith(root + sep))
}

function findImports(path) {
  const candidates = isAbsolute(path) ? [path] : roots.map((root) => resolve(root, path))
  for (const file of candidates) {
    if (existsSync(file) && isAllowed(file)) return { contents: readFileSync(file, 'utf8') }
  }
  return { error: `File not found (looked in ${roots.join(', ')}): ${path}` }
}

const input = readFileSync(0, 'utf8')
process.stdout.write(solc.compile(input, { import: findImports }))
