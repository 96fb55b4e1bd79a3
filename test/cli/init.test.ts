// `order-relay init [DIR]`: the package's example project, copied with the project's name
// and this package's version; a non-empty folder is refused, saying how to go on.
// scripts/test-init.ts runs a scaffold's own `npm test` from the packed package.
import { afterAll, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { main } from '../../src/cli/index.ts'
import { runInit } from '../../src/cli/lib/initProject.ts'

const repo = join(import.meta.dir, '../..')
const version: string = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version
const dir = mkdtempSync(join(tmpdir(), 'order-relay-init-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function cli(args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await main(args, { env: {}, out: (line) => out.push(line), err: (line) => err.push(line), signal: new AbortController().signal })
  return { code, out, err }
}

const files = (root: string) => readdirSync(root, { recursive: true, encoding: 'utf8' }).sort()

test('init DIR writes the example project, named after the folder, on this version of order-relay', async () => {
  const target = join(dir, 'My Adapter')
  const ran = await cli(['init', target])
  expect(ran).toEqual({
    code: 0,
    out: [
      `order-relay init: wrote my-adapter into ${relative(process.cwd(), target)} (src/TicketAdapter.sol, test/, foundry.toml, package.json)`,
      'Next:',
      `  cd ${relative(process.cwd(), target)}`,
      '  npm install',
      '  npm test          # forge build, then bun test and Vitest: one order settles, refusals by name',
    ],
    err: [],
  })
  expect(files(target)).toEqual([
    '.gitignore',
    'foundry.toml',
    'package.json',
    'src',
    'src/TicketAdapter.sol',
    'test',
    'test/npx.vitest.test.ts',
    'test/ticket.bun.test.ts',
    'test/ticket.ts',
    'test/ticket.vitest.test.ts',
    'vitest.config.ts',
  ])
  const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'))
  expect([manifest.name, manifest.type, manifest.devDependencies['order-relay'], manifest.devDependencies.solc]).toEqual(['my-adapter', 'module', `^${version}`, '0.8.37'])
  expect(manifest.allowScripts).toEqual({ bun: true, '@foundry-rs/anvil': true, '@foundry-rs/forge': true })
  expect(manifest.scripts.test).toBe('npm run build && npm run test:bun && npm run test:vitest')
  expect(readFileSync(join(target, 'foundry.toml'), 'utf8')).toContain('solc = "node_modules/order-relay/bin/solc.mjs"\n')
  expect(readFileSync(join(target, '.gitignore'), 'utf8')).toBe('node_modules/\nout/\ncache/\n')
  // The rest is the example byte for byte.
  for (const file of ['foundry.toml', 'src/TicketAdapter.sol', 'test/ticket.bun.test.ts', 'vitest.config.ts']) {
    expect(readFileSync(join(target, file), 'utf8')).toBe(readFileSync(join(repo, 'examples/contract-e2e', file), 'utf8'))
  }
})

test('init into the current folder when it is empty: no `cd` in the next steps', () => {
  const target = join(dir, 'here')
  mkdirSync(target)
  const out: string[] = []
  const cwd = process.cwd()
  process.chdir(target)
  try {
    expect(runInit([], { out: (line) => out.push(line), err: (line) => out.push(line) })).toBe(0)
  } finally {
    process.chdir(cwd)
  }
  expect(out.slice(0, 3)).toEqual(['order-relay init: wrote here into . (src/TicketAdapter.sol, test/, foundry.toml, package.json)', 'Next:', '  npm install'])
  expect(existsSync(join(target, 'src/TicketAdapter.sol'))).toBe(true)
})

test('a non-empty folder is refused (exit 2) and nothing is written; so are extra arguments', async () => {
  const target = join(dir, 'busy')
  mkdirSync(target)
  writeFileSync(join(target, 'package.json'), '{}')
  const ran = await cli(['init', target])
  expect(ran).toEqual({
    code: 2,
    out: [],
    err: [
      `order-relay init: ${target} is not empty (1 entry): init only writes into an empty or new folder.`,
      `  Give a new folder (npx order-relay init my-adapter), or copy what you need from ${join(repo, 'examples/contract-e2e')}`,
    ],
  })
  expect(readdirSync(target)).toEqual(['package.json'])
  expect(await cli(['init', 'a', 'b'])).toEqual({ code: 2, out: [], err: ['order-relay init: give at most one DIR', 'Usage: order-relay init [DIR]'] })
  expect(await cli(['init', '--force'])).toEqual({ code: 2, out: [], err: ['order-relay init: unknown option --force', 'Usage: order-relay init [DIR]'] })
})

test('without the package beside it (the compiled executable), init says to run it from npm', () => {
  const err: string[] = []
  expect(runInit([join(dir, 'nowhere')], { out: () => {}, err: (line) => err.push(line) }, null)).toBe(1)
  expect(err).toEqual(['order-relay init: the project template ships with the npm package, not with this executable: run `npx order-relay init` (npm package order-relay)'])
  expect(existsSync(join(dir, 'nowhere'))).toBe(false)
})

test('init --help and the command list name it', async () => {
  const help = await cli(['init', '--help'])
  expect(help.out.join('\n').split('\n').slice(0, 3)).toEqual(['order-relay init: scaffold a forge project whose adapter is tested through order-relay (bun test and Vitest)', '', 'Usage: order-relay init [DIR]'])
  expect((await cli([])).out.join('\n')).toContain('  init ')
})
