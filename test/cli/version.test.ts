// `--version` from source and from a build's metadata (src/cli/version.ts); the compiled
// executable's own output is checked in test/cli/binary.test.ts.
import { expect, test } from 'bun:test'
import packageJson from '../../package.json' with { type: 'json' }
import { main } from '../../src/cli/main.ts'
import { buildInfo, versionText } from '../../src/cli/version.ts'

test('run from source: the version, then says there is no commit or build date, and the running Bun', async () => {
  expect(buildInfo).toEqual({ version: packageJson.version, bunVersion: Bun.version })
  const out: string[] = []
  const code = await main(['--version'], { env: {}, out: (line) => out.push(line), err: () => {}, signal: new AbortController().signal })
  expect(code).toBe(0)
  expect(out).toEqual([[packageJson.version, 'commit: none (run from source, not a compiled build)', 'built:  not built (run from source)', `bun:    ${Bun.version} (the running Bun)`].join('\n')])
})

test('a compiled build: commit, dirty tree, build date and Bun version', () => {
  const info = { version: '1.2.3', commit: 'ab'.repeat(20), builtAt: '2026-01-02T03:04:05Z', bunVersion: '1.4.5' }
  expect(versionText({ ...info, dirty: false })).toBe(`1.2.3\ncommit: ${'ab'.repeat(20)}\nbuilt:  2026-01-02T03:04:05Z\nbun:    1.4.5`)
  expect(versionText({ ...info, dirty: true })).toBe(`1.2.3\ncommit: ${'ab'.repeat(20)} (dirty: built from a tree with uncommitted changes)\nbuilt:  2026-01-02T03:04:05Z\nbun:    1.4.5`)
})
