#!/usr/bin/env node
// forge cannot download a native solc on a machine without internet, so
// contracts/foundry.toml points `solc` at this wrapper. It speaks the part of solc's
// command line forge uses: `--version`, and `--standard-json` with the JSON input on
// stdin, resolving imports from disk (relative to --base-path / --include-path,
// restricted to --allow-paths) the way native solc does.
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { isAbsolute, resolve, sep } from 'node:path'

const require = createRequire(import.meta.url)
const solc = require('solc')
const args = process.argv.slice(2)

if (args.includes('--version')) {
  process.stdout.write(`solc, the solidity compiler commandline interface\nVersion: ${solc.version()}\n`)
  process.exit(0)
}
if (!args.includes('--standard-json')) {
  process.stderr.write('solc.mjs: only --version and --standard-json are supported (this wraps solc-js for forge)\n')
  process.exit(2)
}

const option = (name) => {
  const values = []
  for (let i = 0; i < args.length; i++) if (args[i] === name && args[i + 1]) values.push(args[i + 1])
  return values
}
const basePath = option('--base-path')[0] ?? process.cwd()
const roots = [basePath, ...option('--include-path')]
const allowed = [...roots, ...option('--allow-paths').flatMap((p) => p.split(','))].map((p) => resolve(p))
const isAllowed = (file) => allowed.some((root) => file === root || file.startsWith(root + sep))

function findImports(path) {
  const candidates = isAbsolute(path) ? [path] : roots.map((root) => resolve(root, path))
  for (const file of candidates) {
    if (isAllowed(file) && existsSync(file)) return { contents: readFileSync(file, 'utf8') }
  }
  return { error: `File not found (looked in ${roots.join(', ')}): ${path}` }
}

const input = readFileSync(0, 'utf8')
process.stdout.write(solc.compile(input, { import: findImports }))
