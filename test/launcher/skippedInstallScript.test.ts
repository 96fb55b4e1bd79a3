// A bun or anvil installed from npm whose install script never ran (npm 12 without an
// allowScripts entry, or --ignore-scripts): the lookups say so and print the command that
// runs it, on a scratch folder laid out as such an install leaves it.
import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AnvilNotFoundError, approveAnvilScript, locateAnvil } from '../../src/devnet/index.ts'
import { approveBunScript, BunNotFoundError, bunFromNodeModules } from '../../src/launcher/index.ts'

const root = mkdtempSync(join(tmpdir(), 'order-relay-skipped-script-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** What bun@1.4.5's bin/bun.exe is until its postinstall (install.js) replaces it with the real binary. */
const bunPlaceholder = `#!/bin/sh
echo "Error: Bun's postinstall script was not run." >&2
echo "" >&2
echo "This occurs when using --ignore-scripts during installation, or when using a" >&2
echo "package manager like pnpm that does not run postinstall scripts by default." >&2
echo "" >&2
echo "To fix this, run the postinstall script manually:" >&2
echo "  cd node_modules/bun && node install.js" >&2
echo "" >&2
echo "Or reinstall bun without the --ignore-scripts flag." >&2
exit 1
`

/** A project folder with `files` (path → contents) under it, and a subfolder `src` to look from. */
function project(name: string, files: Record<string, string>): string {
  const dir = join(root, name)
  mkdirSync(join(dir, 'src'), { recursive: true })
  for (const [path, contents] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), contents, { mode: 0o755 })
  }
  return dir
}

const bunManifest = JSON.stringify({ name: 'bun', version: '1.4.5', bin: { bun: 'bin/bun.exe' }, scripts: { postinstall: 'node install.js' } })
const anvilManifest = JSON.stringify({ name: '@foundry-rs/anvil', version: '1.7.1', scripts: { postinstall: 'TARGET_TOOL=anvil node ./postinstall.mjs' } })
const anvilPlatform = `anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`

test('a bun package holding only its placeholder: the message says the install script did not run and gives the command', () => {
  const dir = project('bun-skipped', { 'node_modules/bun/package.json': bunManifest, 'node_modules/bun/bin/bun.exe': bunPlaceholder })
  let thrown: unknown
  try {
    bunFromNodeModules(join(dir, 'src'))
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(BunNotFoundError)
  expect((thrown as BunNotFoundError).code).toBe('BUN_NOT_FOUND')
  expect((thrown as BunNotFoundError).message).toBe(
    [
      `bun's install script did not run: ${dir}/node_modules/bun/bin/bun.exe is the placeholder the npm package \`bun\` ships until its postinstall puts the real binary there.`,
      "npm 12 runs a dependency's install script only when package.json's allowScripts approves it (and no npm runs one under --ignore-scripts).",
      `Approve and run it, in ${dir}: npm approve-scripts bun && npm rebuild bun`,
    ].join('\n'),
  )
  expect(approveBunScript).toBe('npm approve-scripts bun && npm rebuild bun')
})

test('a bun package whose install script ran: its binary, found from a subfolder', () => {
  const dir = project('bun-installed', { 'node_modules/bun/package.json': bunManifest, 'node_modules/bun/bin/bun.exe': '#!/bin/sh\necho 1.4.5\n' })
  expect(bunFromNodeModules(join(dir, 'src'))).toBe(join(dir, 'node_modules/bun/bin/bun.exe'))
  expect(bunFromNodeModules(join(root, 'bun-skipped', '..', '..'))).toBeUndefined()
})

test('an anvil package with neither its platform package nor a fetched binary: the message says the install script did not run and gives the command', () => {
  const dir = project('anvil-skipped', { 'node_modules/@foundry-rs/anvil/package.json': anvilManifest })
  const where = { nodeModulesFrom: [join(dir, 'src')], foundryBin: join(root, 'no-foundry', 'bin'), onPath: null }
  let thrown: unknown
  try {
    locateAnvil(where)
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(AnvilNotFoundError)
  expect((thrown as AnvilNotFoundError).code).toBe('ANVIL_NOT_FOUND')
  expect((thrown as AnvilNotFoundError).message).toBe(
    [
      `anvil's install script did not run: ${dir}/node_modules/@foundry-rs/anvil holds no anvil binary, and @foundry-rs/${anvilPlatform} (the per-platform package that brings it) is not installed.`,
      "The package's postinstall fetches the binary from the npm registry then; npm 12 runs a dependency's install script only when package.json's allowScripts approves it (and no npm runs one under --ignore-scripts).",
      `Approve and run it, in ${dir}: npm approve-scripts @foundry-rs/anvil && npm rebuild @foundry-rs/anvil`,
    ].join('\n'),
  )
  expect(approveAnvilScript).toBe('npm approve-scripts @foundry-rs/anvil && npm rebuild @foundry-rs/anvil')
  // A working anvil elsewhere (Foundry's install folder) is used instead.
  const foundryBin = join(root, 'foundry', 'bin')
  project('foundry', { 'bin/anvil': '#!/bin/sh\n' })
  expect(locateAnvil({ ...where, foundryBin })).toBe(join(foundryBin, 'anvil'))
})

test("anvil's binary from its platform package, or fetched into the package's folder by its install script", () => {
  const fetched = project('anvil-fetched', { 'node_modules/@foundry-rs/anvil/package.json': anvilManifest, 'node_modules/@foundry-rs/anvil/anvil': '#!/bin/sh\n' })
  const where = { foundryBin: join(root, 'no-foundry', 'bin'), onPath: null }
  expect(locateAnvil({ ...where, nodeModulesFrom: [join(fetched, 'src')] })).toBe(join(fetched, 'node_modules/@foundry-rs/anvil/anvil'))
  const platform = project('anvil-platform', {
    'node_modules/@foundry-rs/anvil/package.json': anvilManifest,
    [`node_modules/@foundry-rs/${anvilPlatform}/bin/anvil`]: '#!/bin/sh\n',
  })
  expect(locateAnvil({ ...where, nodeModulesFrom: [join(platform, 'src')] })).toBe(join(platform, `node_modules/@foundry-rs/${anvilPlatform}/bin/anvil`))
})

test('the project and the example approve exactly the install scripts they need: bun, anvil and forge (not cast, whose binary comes with its platform package)', async () => {
  const repo = join(import.meta.dir, '../..')
  const approved = { bun: true, '@foundry-rs/anvil': true, '@foundry-rs/forge': true }
  expect((await Bun.file(join(repo, 'package.json')).json()).allowScripts).toEqual(approved)
  expect((await Bun.file(join(repo, 'examples/contract-e2e/package.json')).json()).allowScripts).toEqual(approved)
})

test("anvil on PATH being @foundry-rs/anvil's Node shim (npx puts node_modules/.bin there): the binary behind it, or the skipped install script", () => {
  const dir = project('anvil-shim', { 'node_modules/@foundry-rs/anvil/package.json': anvilManifest, 'node_modules/@foundry-rs/anvil/bin.mjs': '#!/usr/bin/env node\n' })
  mkdirSync(join(dir, 'node_modules/.bin'))
  symlinkSync('../@foundry-rs/anvil/bin.mjs', join(dir, 'node_modules/.bin/anvil'))
  const where = { nodeModulesFrom: [join(root, 'no-project')], foundryBin: join(root, 'no-foundry', 'bin'), onPath: join(dir, 'node_modules/.bin/anvil') }
  expect(() => locateAnvil(where)).toThrow(`Approve and run it, in ${dir}: npm approve-scripts @foundry-rs/anvil && npm rebuild @foundry-rs/anvil`)
  writeFileSync(join(dir, 'node_modules/@foundry-rs/anvil/anvil'), '#!/bin/sh\n', { mode: 0o755 })
  expect(locateAnvil(where)).toBe(join(dir, 'node_modules/@foundry-rs/anvil/anvil'))
  // Any other anvil on PATH is taken as it is.
  const other = project('anvil-elsewhere', { 'bin/anvil': '#!/bin/sh\n' })
  expect(locateAnvil({ ...where, onPath: join(other, 'bin/anvil') })).toBe(join(other, 'bin/anvil'))
})
