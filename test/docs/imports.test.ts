// The product, the tests and the bench stand on their own: nothing under src/ or
// scripts/ imports from test/, src/ imports nothing from scripts/, and of the tests only
// test/bench/ imports the bench (scripts/bench/). Fixtures both sides need live in
// scripts/lib/. Each import that breaks a rule is named as file:line. And src/ has no
// import loop: each module stands on the ones below it.
import { expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'

const root = join(import.meta.dir, '..', '..')
const code = /\.(?:ts|mjs|js)$/

/** Every relative import of a file (static, side-effect, re-export or dynamic), with its line. */
export function importsOf(text: string): { line: number; specifier: string }[] {
  const found: { line: number; specifier: string }[] = []
  text.split('\n').forEach((line, index) => {
    for (const match of line.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]+)\1/g)) {
      found.push({ line: index + 1, specifier: match[2]! })
    }
  })
  return found
}

/** What `file` imports, as paths from the repository's root. */
function importedPaths(file: string) {
  const text = readFileSync(join(root, file), 'utf8')
  return importsOf(text).map(({ line, specifier }) => ({ line, target: normalize(join(dirname(file), specifier)) }))
}

const filesUnder = (dir: string) =>
  readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => code.test(name) && !name.split('/').includes('node_modules'))
    .map((name) => join(dir, name))

/** The rules: files under `from` may not import paths under `to`, except from under `unless`. */
const rules = [
  { from: 'src', to: 'test', says: 'the product imports a test file' },
  { from: 'scripts', to: 'test', says: 'a script imports a test file (shared fixtures belong in scripts/lib/)' },
  { from: 'src', to: 'scripts', says: 'the product imports a script' },
  { from: 'test', to: join('scripts', 'bench'), unless: join('test', 'bench'), says: 'a test outside test/bench/ imports the bench' },
] as const

const self = relative(root, import.meta.path)

export function brokenImports(): string[] {
  const broken: string[] = []
  for (const rule of rules) {
    for (const file of filesUnder(rule.from)) {
      if ('unless' in rule && file.startsWith(`${rule.unless}/`)) continue
      if (file === self) continue // its examples below are imports in strings
      for (const { line, target } of importedPaths(file)) {
        if (target === rule.to || target.startsWith(`${rule.to}/`)) broken.push(`${file}:${line}: imports ${target} (${rule.says})`)
      }
    }
  }
  return broken
}

test('src/ and scripts/ never import test/; src/ never imports scripts/; only test/bench/ imports the bench', () => {
  expect(brokenImports()).toEqual([])
})

test('every form of relative import is read, and nothing else', () => {
  const text = [
    "import { a } from '../../test/helpers/a.ts'",
    "import type { B } from './b.ts'",
    "export { c } from '../c.ts'",
    "import './side-effect.ts'",
    "const d = await import('../../scripts/bench/d.ts')",
    "import { e } from 'viem'",
    "const url = 'https://example.com/x.ts'",
  ].join('\n')
  expect(importsOf(text)).toEqual([
    { line: 1, specifier: '../../test/helpers/a.ts' },
    { line: 2, specifier: './b.ts' },
    { line: 3, specifier: '../c.ts' },
    { line: 4, specifier: './side-effect.ts' },
    { line: 5, specifier: '../../scripts/bench/d.ts' },
  ])
  expect(relative(root, join(root, normalize(join('scripts/bench/lib', '../../../test/x.ts'))))).toBe('test/x.ts')
})

/** Every loop of imports among the files under `dir` (type imports included), each as its files in import order. */
export function importCycles(dir: string): string[][] {
  const files = new Set(filesUnder(dir))
  const edges = new Map([...files].map((file) => [file, importedPaths(file).map(({ target }) => target).filter((target) => files.has(target))]))
  // Tarjan's strongly connected components: a component of more than one file, or a file importing itself, is a loop.
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  let next = 0
  const visit = (file: string) => {
    index.set(file, next)
    low.set(file, next++)
    stack.push(file)
    onStack.add(file)
    for (const target of edges.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target)
        low.set(file, Math.min(low.get(file)!, low.get(target)!))
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!))
    }
    if (low.get(file) !== index.get(file)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== file)
    if (component.length > 1 || edges.get(file)!.includes(file)) cycles.push(component.sort())
  }
  for (const file of files) if (!index.has(file)) visit(file)
  return cycles
}

test('no import cycle in src/, type imports included: each module stands on the ones below it', () => {
  expect(importCycles('src')).toEqual([])
})
