// Turns forge's output for contracts/src into one typed module, src/chain/generated/artifacts.ts:
// `export const <contract>Abi = [...] as const` for every contract and interface, and
// `export const <contract>Bytecode = '0x…' as const` for every deployable one, and for the
// contracts under contracts/src/offchain/ (never deployed: their runtime code is put at an
// address by an `eth_call` state override) `<contract>RuntimeBytecode` instead.
//
//   bun scripts/generate-artifacts.ts           write the module
//   bun scripts/generate-artifacts.ts --check   exit 1 if the committed module differs from contracts/out
//
// Run it through `bun run build:contracts` (scripts/build-contracts.ts), which builds contracts/out first.
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'

const root = join(import.meta.dir, '..')
const contractsDir = join(root, 'contracts')
const outDir = join(contractsDir, 'out')
const target = join(root, 'src', 'chain', 'generated', 'artifacts.ts')
const targetName = relative(root, target)

type Artifact = { name: string; source: string; abi: unknown[]; bytecode: string | undefined; runtime: boolean }

/** Every file under `dir` (recursively) whose name ends with `suffix`, as sorted absolute paths. */
function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith(suffix))
    .map((file) => join(dir, file))
    .sort()
}

/** The project's artifacts: contracts compiled from a source that still exists under contracts/src. */
function readArtifacts(): Artifact[] {
  if (!existsSync(outDir)) fail(`${relative(root, outDir)} does not exist: run \`bun run build:contracts\` first.`)
  const sources = new Set(filesUnder(join(contractsDir, 'src'), '.sol').map((f) => relative(contractsDir, f).split(sep).join('/')))
  const artifacts: Artifact[] = []
  for (const file of filesUnder(outDir, '.json')) {
    if (relative(outDir, file).split(sep)[0] === 'build-info') continue
    const json = JSON.parse(readFileSync(file, 'utf8'))
    const targets = Object.entries<string>(json.metadata?.settings?.compilationTarget ?? {})
    const [source, name] = targets[0] ?? []
    if (!source || !name || !sources.has(source)) continue
    const runtime = source.startsWith('src/offchain/')
    const object: string = (runtime ? json.deployedBytecode?.object : json.bytecode?.object) ?? '0x'
    artifacts.push({ name, source, abi: json.abi, bytecode: object.length > 2 ? object : undefined, runtime })
  }
  const seen = new Map<string, string>()
  for (const { name, source } of artifacts) {
    const other = seen.get(name)
    if (other) fail(`two contracts named ${name} (${other}, ${source}): export names would clash.`)
    seen.set(name, source)
  }
  for (const source of sources) {
    const declares = /^\s*(abstract\s+contract|contract|interface|library)\s/m.test(readFileSync(join(contractsDir, source), 'utf8'))
    if (declares && !artifacts.some((a) => a.source === source)) {
      fail(`no artifact for ${source} in ${relative(root, outDir)}: run \`bun run build:contracts\`.`)
    }
  }
  return artifacts.sort((a, b) => byCodeUnit(a.source, b.source) || byCodeUnit(a.name, b.name))
}

/** `Broker` → `broker`, `MockEIP3009Token` → `mockEIP3009Token`, `IAdapter` → `iAdapter`. */
function exportBase(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1)
}

// Keys in the order viem and abitype print ABIs (entries: type first; parameters: name first);
// anything else follows in code-unit order.
const entryKeys = ['type', 'name', 'inputs', 'outputs', 'stateMutability', 'anonymous']
const paramKeys = ['name', 'type', 'indexed', 'internalType', 'components']
const rank = (order: string[], key: string) => (order.includes(key) ? order.indexOf(key) : order.length)
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
const maxWidth = 120

/**
 * Prints `value` as a TypeScript literal: on one line when it fits in `maxWidth`, else one entry per line.
 * `keys` orders the keys of an object; objects nested inside it are ABI parameters.
 */
function print(value: unknown, indent: string, keys = paramKeys): string {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value)
  const inner = indent + '  '
  let entries: string[]
  let open: string
  let close: string
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]'
    entries = value.map((item) => print(item, inner, keys))
    ;[open, close] = ['[', ']']
  } else if (typeof value === 'object') {
    const names = Object.keys(value).sort((a, b) => rank(keys, a) - rank(keys, b) || byCodeUnit(a, b))
    if (names.length === 0) return '{}'
    entries = names.map((key) => {
      const printedKey = /^[A-Za-z_$][\w$]*$/.test(key) ? key : print(key, inner)
      return `${printedKey}: ${print((value as Record<string, unknown>)[key], inner)}`
    })
    ;[open, close] = ['{ ', ' }']
  } else {
    return fail(`cannot print ${typeof value} in an ABI`)
  }
  const flat = `${open}${entries.join(', ')}${close}`
  if (!flat.includes('\n') && indent.length + flat.length <= maxWidth) return flat
  return `${open.trim()}\n${entries.map((e) => `${inner}${e},`).join('\n')}\n${indent}${close.trim()}`
}

function render(artifacts: Artifact[]): string {
  const lines = [
    '// Generated by `bun run build:contracts` (scripts/generate-artifacts.ts) from the forge build of',
    '// contracts/src. Do not edit: change the contracts and rebuild.',
    '',
  ]
  for (const { name, source, abi, bytecode, runtime } of artifacts) {
    const base = exportBase(name)
    lines.push(`/** ABI of \`${name}\` (contracts/${source}). */`)
    lines.push(`export const ${base}Abi = ${print(abi, '', entryKeys)} as const`, '')
    if (bytecode && runtime) {
      lines.push(`/** Runtime bytecode of \`${name}\`, for an \`eth_call\` state override (it is never deployed). */`)
      lines.push(`export const ${base}RuntimeBytecode = '${bytecode}' as const`, '')
    } else if (bytecode) {
      lines.push(`/** Creation bytecode of \`${name}\`. */`)
      lines.push(`export const ${base}Bytecode = '${bytecode}' as const`, '')
    }
  }
  return lines.join('\n')
}

function fail(message: string): never {
  console.error(`generate-artifacts: ${message}`)
  process.exit(1)
}

const artifacts = readArtifacts()
const fresh = render(artifacts)

if (process.argv.includes('--check')) {
  const committed = existsSync(target) ? readFileSync(target, 'utf8') : undefined
  if (committed === undefined) fail(`${targetName} is missing: run \`bun run build:contracts\` and commit it.`)
  if (committed !== fresh) {
    const a = committed.split('\n')
    const b = fresh.split('\n')
    let line = 0
    while (line < a.length && a[line] === b[line]) line++
    fail(
      `${targetName} is out of date with contracts/src (first difference at line ${line + 1}): ` +
        'run `bun run build:contracts` and commit the result.',
    )
  }
  console.log(`generate-artifacts: ${targetName} is up to date (${artifacts.length} contracts).`)
} else {
  mkdirSync(dirname(target), { recursive: true })
  const previous = existsSync(target) ? readFileSync(target, 'utf8') : undefined
  if (previous !== fresh) writeFileSync(target, fresh)
  console.log(
    `generate-artifacts: ${previous === fresh ? 'unchanged' : 'wrote'} ${targetName} ` +
      `(${artifacts.map((a) => a.name).join(', ')}).`,
  )
}
