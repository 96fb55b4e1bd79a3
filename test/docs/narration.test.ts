// Docs and comments say what the code is and why, never how it came to be (history
// lives in git). This scans the prose a reader meets (every line of README.md and
// docs/, the comments of src/, scripts/, contracts/src and test/) for the phrasings of
// development narration and names each hit as file:line. The patterns are precise
// rather than an allowlist: "can no longer settle" (an order's life) is not a hit,
// "is no longer `private`" (the package's) is.
import { expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

const root = join(import.meta.dir, '..', '..')
const ordinal = String.raw`(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|\d+(?:st|nd|rd|th))`

/** Each phrasing, with what it narrates. */
export const narration: readonly { pattern: RegExp; says: string }[] = [
  { pattern: new RegExp(String.raw`\b${ordinal} pass(?:'s|es)?\b`, 'i'), says: 'a pass of development ("the ninth pass")' },
  { pattern: /\b(?:last|previous|earlier|later) (?:\w+ )?passes\b|\bpass(?:es)? on issue\b/i, says: 'passes of development' },
  { pattern: /\bissues? \d+\b/i, says: 'a tracker issue as the reason (say the reason itself)' },
  { pattern: /\b(?:earlier|older|previous|former) (?:version|versions|build|builds|design|code|releases?)\b/i, says: 'an earlier version of the project' },
  { pattern: /\bas (?:first|originally|initially) (?:designed|written|built|planned|proposed)\b/i, says: 'the first design' },
  { pattern: /\b(?:the )?original (?:design|specification|spec|codes|list|version|generic)\b/i, says: 'the original design' },
  { pattern: /\bthis (?:replaces|supersedes)\b|\breplaces the [\w-]+(?: [\w-]+)? of\b/i, says: 'what the code replaced' },
  { pattern: /\bbefore 20\d\d-\d\d-\d\d\b/, says: 'a date in the project\'s history' },
  { pattern: /\b(?:formerly|previously|hitherto)\b/i, says: 'what was before' },
  { pattern: /\bused to (?:be|grow|step|stop|share|print|poll|take|have|hold|read|send|run|cost|answer|refuse|live)\b/i, says: 'what the code used to do' },
  { pattern: /(?<!can )\bno longer\b(?! (?:settle|known|on the chain|the chain's|reaches|confirms|be |pending|accepted|hold))/i, says: '"no longer" of the code' },
  { pattern: /\bas before\b(?! (?:the|it|a|an|its|they|any)\b)/i, says: '"as before" a change' },
  { pattern: /\b(?:which|it|journal|benchmark|fix|slot|code|route|row|test|relayer|indexer|bench) now (?!on\b|that\b)\w+/i, says: '"now" in the sense of a change' },
  { pattern: /\b(?:departs?|departures?) from\b|\bbefore (?:\w+ ){1,3}existed\b|\bwritten before \w+ still\b|\bneeds no change\b|\b(?:table|format|events?|api|interface|schema|design|behaviou?r|code) (?:is|are) unchanged\b|\bis gone: it\b/i, says: 'a departure or a change' },
  { pattern: /\bwe (?:changed|added|removed|replaced|rewrote|moved)\b|\b(?:was|were) (?:changed|rewritten|moved) (?:to|from|into)\b/i, says: 'a change made' },
  { pattern: /\buntil (?:the|this|that) (?:\w+ )?(?:pass|change|fix|issue)\b|\bbenchmarks-history\b/i, says: 'the history' },
  { pattern: /\b(?:before|after|since) (?:the|this|that) (?:fix|change|rewrite)\b|\bwhat changed is\b/i, says: 'a fix or a change' },
  { pattern: /(?:^|[.!?]\s+)Now,? (?!on\b)/, says: '"Now" opening a sentence about a change' },
  { pattern: /(?:^|[.!?]\s+)Before[:,]|\bbefore, \d|\bBefore the (?:journal|store|cache|keeper|watcher|edge|fix)\b/, says: '"Before" a change' },
]

/** The prose of a file: every line of Markdown; the comments of code (line numbers kept). */
export function proseLines(path: string, text: string): { line: number; text: string }[] {
  const lines = text.split('\n')
  if (path.endsWith('.md')) return lines.map((line, index) => ({ line: index + 1, text: line }))
  const out: { line: number; text: string }[] = []
  let inBlock = false
  lines.forEach((line, index) => {
    let rest = line
    let prose = ''
    while (rest.length) {
      if (inBlock) {
        const end = rest.indexOf('*/')
        // A block comment's continuation lines start with ` * `.
        prose += ` ${(end < 0 ? rest : rest.slice(0, end)).replace(/^\s*\*+(?!\/)/, '')}`
        if (end < 0) break
        inBlock = false
        rest = rest.slice(end + 2)
        continue
      }
      // A comment starts at the line's start or after whitespace (never inside `http://`).
      const start = /(?:^|\s)(\/\/|\/\*)/.exec(rest)
      if (!start) break
      const at = start.index + start[0].length
      if (start[1] === '//') {
        prose += ` ${rest.slice(at).replace(/^\/+/, '')}`
        break
      }
      inBlock = true
      rest = rest.slice(at).replace(/^\*+/, '')
    }
    if (prose.trim()) out.push({ line: index + 1, text: prose.trim() })
  })
  return out
}

const scanned = ['README.md', 'docs', 'src', 'scripts', join('contracts', 'src'), 'test']
const prose = /\.(?:md|ts|mjs|js|sol)$/

function filesUnder(path: string): string[] {
  const full = join(root, path)
  if (prose.test(path)) return [path]
  return readdirSync(full, { recursive: true, encoding: 'utf8' })
    .filter((name) => prose.test(name) && !name.split('/').includes('node_modules'))
    .map((name) => join(path, name))
}

const self = relative(root, import.meta.path)

export function findNarration(): string[] {
  const hits: string[] = []
  // This file holds the phrasings as its examples.
  for (const file of scanned.flatMap(filesUnder).filter((file) => file !== self)) {
    const text = readFileSync(join(root, file), 'utf8')
    const lines = proseLines(file, text)
    lines.forEach(({ line, text: words }, index) => {
      // A phrase may wrap: read each line with the next one, and report what starts on it.
      const next = lines[index + 1]
      const joined = next?.line === line + 1 ? `${words} ${next.text}` : words
      for (const { pattern, says } of narration) {
        const match = new RegExp(pattern.source, `${pattern.flags}g`).exec(joined)
        if (match && match.index < words.length) hits.push(`${file}:${line}: "${match[0]}" (${says})`)
      }
    })
  }
  return hits
}

test('README, docs and comments describe what is, never the development history', () => {
  expect(findNarration()).toEqual([])
})

test('the scan reads comments, not code, and each pattern catches its phrasing', () => {
  expect(proseLines('a.ts', "const url = 'http://x' // the seventh pass\n/* as first\n designed */ x()").map((l) => l.line)).toEqual([1, 2, 3])
  expect(proseLines('a.ts', "log('was no longer private')").length).toBe(0)
  const caught = (sentence: string) => narration.some(({ pattern }) => pattern.test(sentence))
  for (const sentence of [
    'docs/benchmarks-history.md, the ninth pass',
    'This replaces the per-request revive-while-waiting of earlier versions.',
    'one request after another as first designed',
    'It is no longer `private`, so `npm publish` works.',
    'A journal written by a version before 2026-11-26 is upgraded',
    'The journal now carries its schema version',
    'Gas-limit poisoning (issue 11 item 7)',
    'it used to grow by 1.2 GiB',
    'the answer is unchanged, byte for byte as before',
    'This departs from the original design',
  ]) expect(caught(sentence)).toBe(true)
  for (const sentence of [
    'its order can no longer settle',
    'tx 0x… was no longer known to the node',
    'block 90 is no longer the chain\'s',
    'the relayer sends one transaction per request from now on',
    'a test that passes on anvil',
    'the first entry in the list',
    'a journal file from an earlier devnet',
    'Only used to name the node in errors',
  ]) expect(caught(sentence)).toBe(false)
})
