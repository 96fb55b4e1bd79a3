// `npm run release` (scripts/release.ts) on a machine that cannot fetch another platform's
// Bun runtime: the failing target is named, this machine's own target (whose runtime is the
// running Bun) is still built and checksummed, and the exit code is 1. The runtime cache
// is an empty folder and the proxy a closed port, so nothing is fetched.
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import packageJson from '../../package.json' with { type: 'json' }
import { artifactName, releaseTargets, selectTargets, sha256File, writeChecksums } from '../../scripts/release/index.ts'
import { freePortBase } from '../helpers/processes.ts'

const root = resolve(import.meta.dir, '../..')
const work = mkdtempSync(join(tmpdir(), 'order-relay-release-test-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

test('artifact names and target selection', () => {
  expect(releaseTargets.map((target) => artifactName('0.1.0', target))).toEqual([
    'order-relay-0.1.0-linux-x64',
    'order-relay-0.1.0-linux-arm64',
    'order-relay-0.1.0-darwin-x64',
    'order-relay-0.1.0-darwin-arm64',
    'order-relay-0.1.0-windows-x64.exe',
  ])
  expect(selectTargets('darwin-arm64, linux-x64').map((target) => target.bunTarget)).toEqual(['bun-darwin-arm64', 'bun-linux-x64'])
  expect(() => selectTargets('linux-x86')).toThrow('unknown target "linux-x86"; known: linux-x64, linux-arm64, darwin-x64, darwin-arm64, windows-x64')
})

test('SHA256SUMS is what sha256sum -c reads', async () => {
  const dir = mkdtempSync(join(work, 'sums-'))
  await Bun.write(join(dir, 'b'), 'bee\n')
  await Bun.write(join(dir, 'a'), '')
  const path = await writeChecksums(dir, [join(dir, 'b'), join(dir, 'a')])
  expect(readFileSync(path, 'utf8')).toBe(`e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a\n${await sha256File(join(dir, 'b'))}  b\n`)
  const check = Bun.spawnSync(['sha256sum', '-c', 'SHA256SUMS'], { cwd: dir, stdout: 'pipe' })
  expect([check.exitCode, check.stdout.toString()]).toEqual([0, 'a: OK\nb: OK\n'])
})

test('a target whose runtime cannot be fetched is named; the others are built and checksummed; exit 1', async () => {
  const outdir = join(work, 'release')
  const host = `linux-${process.arch}`
  const closedPort = await freePortBase(1)
  const release = Bun.spawn(['bun', 'scripts/release.ts', '--skip-contracts', '--targets', `${host},windows-x64`, '--outdir', outdir], {
    cwd: root,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, BUN_INSTALL_CACHE_DIR: mkdtempSync(join(work, 'cache-')), HTTPS_PROXY: `http://127.0.0.1:${closedPort}`, HTTP_PROXY: `http://127.0.0.1:${closedPort}` },
  })
  const [out, err, code] = await Promise.all([new Response(release.stdout).text(), new Response(release.stderr).text(), release.exited])
  expect(code).toBe(1)
  const hostName = artifactName(packageJson.version, selectTargets(host)[0]!)
  expect(out).toMatch(new RegExp(`^  ${host} +${hostName} +\\d+\\.\\d MB`, 'm'))
  expect(err).toContain("  windows-x64  FAILED: Failed to download 'bun-windows-x64-v")
  expect(err).toContain('release: 1 of 2 targets failed: windows-x64. Bun fetches each target\'s runtime from the npm registry (@oven/bun-<os>-<arch>); check this machine reaches it (proxy, registry settings) and run `npm run release` again.')
  expect(readdirSync(outdir).sort()).toEqual(['SHA256SUMS', hostName])
  expect(readFileSync(join(outdir, 'SHA256SUMS'), 'utf8')).toBe(`${await sha256File(join(outdir, hostName))}  ${hostName}\n`)
}, 120_000)
