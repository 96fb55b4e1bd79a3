// Proves every artifact `npm run release` wrote to dist/release (or DIR):
// - SHA256SUMS: `sha256sum -c SHA256SUMS` passes;
// - each artifact's header is the format and CPU its name says (ELF, Mach-O, PE32+;
//   x86-64 or arm64), read by scripts/release/formats.ts;
// - linux-x64, end to end (scripts/ci/release-smoke.ts): alone in an empty folder it
//   runs a devnet with anvil from npm and settles an order;
// - linux-arm64 under qemu-user-static (Debian's qemu-user-static, with the arm64 C
//   library from Debian's libc6-arm64-cross): `--version`, then a relayer against the
//   x64 devnet's anvil whose /health and /info answer 200, and which settles one order
//   (its signer thread signs under the arm64 runtime).
// Nothing is downloaded.
//
//   bun scripts/ci/release-artifacts.ts [DIR]
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import packageJson from '../../package.json' with { type: 'json' }
import { devnetAccounts, manifestTokensVariable } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { spawnChild, waitForOk } from '../bench/lib/processes.ts'
import { artifactName, executableFormat, expectedFormats, readHead, releaseTargets } from '../release/index.ts'
import { type ExecutableDevnet, settleOneOrder, waitForOutput, withExecutableDevnet } from './release-smoke.ts'

const dir = resolve(Bun.argv[2] ?? join(import.meta.dir, '../../dist/release'))
const { version } = packageJson
const failures: string[] = []
const check = (ok: boolean, line: string) => {
  console.log(`${ok ? '✓' : '✗'} ${line}`)
  if (!ok) failures.push(line)
}

// The sysroot qemu reads the arm64 executable's dynamic loader and C library from.
const arm64Sysroot = '/usr/aarch64-linux-gnu'

async function checkArm64(devnet: ExecutableDevnet, exe: string): Promise<void> {
  const qemu = Bun.which('qemu-aarch64-static') ?? Bun.which('qemu-aarch64')
  if (!qemu || !existsSync(join(arm64Sysroot, 'lib/ld-linux-aarch64.so.1'))) {
    check(false, `linux-arm64: needs qemu-aarch64-static and ${arm64Sysroot} (apt-get install qemu-user-static libc6-arm64-cross)`)
    return
  }
  const command = [qemu, '-L', arm64Sysroot, exe]
  const started = performance.now()
  const printed = Bun.spawnSync([...command, '--version'], { stdout: 'pipe', stderr: 'pipe' })
  const lines = printed.stdout.toString().split('\n')
  check(printed.exitCode === 0 && lines[0] === version && /^bun: +\d/.test(lines[3] ?? ''), `linux-arm64 under qemu: --version prints ${JSON.stringify(lines.slice(0, 4))} (${((performance.now() - started) / 1000).toFixed(1)} s)`)

  const work = mkdtempSync(join(tmpdir(), 'order-relay-arm64-'))
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const relayer = spawnChild(
    [...command, 'relayer'],
    {
      PATH: '/usr/bin:/bin',
      RELAYER_PK: devnetAccounts.secondRelayer.privateKey,
      RELAYER_CHAIN_ID: String(devnet.manifest.chainId),
      RELAYER_RPC_URL: devnet.manifest.rpcUrl,
      RELAYER_BROKER: devnet.manifest.contracts.broker,
      RELAYER_PORT: String(port),
      ...manifestTokensVariable(devnet.manifest as { tokens?: Record<string, string> }),
    },
    { cwd: work },
  )
  try {
    // qemu translates every instruction: a start takes seconds, not milliseconds.
    await waitForOutput(relayer, /listening on/, 'linux-arm64 relayer under qemu says "listening on"', 120_000)
    const healthMs = await waitForOk(`${url}/health`, { child: relayer, timeoutMs: 60_000, intervalMs: 200 })
    check(true, `linux-arm64 relayer under qemu: GET /health 200 (${(healthMs / 1000).toFixed(1)} s after listening)`)
    const info = (await (await fetch(`${url}/info`)).json()) as { relayer?: string; supportedChainIds?: number[] }
    check(
      info.relayer === devnetAccounts.secondRelayer.address && info.supportedChainIds?.[0] === devnet.manifest.chainId,
      `linux-arm64 relayer under qemu: GET /info 200, relayer ${info.relayer}, chains ${JSON.stringify(info.supportedChainIds)}`,
    )
    const settled = Bun.spawnSync([devnet.exe, 'order', '--manifest', devnet.manifestPath, '--relayer', url], { cwd: devnet.dir, stdout: 'pipe', stderr: 'pipe', env: { PATH: '/usr/bin:/bin' } })
    const body = settled.stdout.toString()
    check(settled.exitCode === 0 && body.includes('"AllocationGranted"'), `linux-arm64 relayer under qemu: settles an order (its signer thread signs)${settled.exitCode === 0 ? '' : `: ${settled.stderr.toString().trim()}`}`)
    check(!relayer.output.includes('signer thread stopped'), 'linux-arm64 relayer under qemu: the embedded signer thread ran')
    const code = await relayer.stop(30_000)
    check(code === 0, `linux-arm64 relayer under qemu: SIGTERM, exit ${code}`)
  } catch (error) {
    check(false, `linux-arm64 relayer under qemu: ${(error as Error).message}`)
  } finally {
    await relayer.stop(1_000)
    rmSync(work, { recursive: true, force: true })
  }
}

const started = performance.now()
const sums = Bun.spawnSync(['sha256sum', '-c', 'SHA256SUMS'], { cwd: dir, stdout: 'pipe', stderr: 'pipe' })
check(sums.exitCode === 0, `sha256sum -c SHA256SUMS in ${dir}: ${sums.stdout.toString().trim().split('\n').join('; ')}${sums.stderr.toString().trim()}`)
const listed = sums.exitCode === 0 ? readdirSync(dir).filter((name) => name.startsWith('order-relay-')).sort() : []
check(listed.length === releaseTargets.length, `${listed.length} artifacts for ${releaseTargets.length} targets`)

for (const target of releaseTargets) {
  const path = join(dir, artifactName(version, target))
  if (!existsSync(path)) {
    check(false, `${target.name}: ${path} is missing`)
    continue
  }
  const found = executableFormat(await readHead(path))
  const expected = expectedFormats[target.name]!
  check(found?.format === expected.format && found.arch === expected.arch, `${target.name}: ${found ? `${found.format} ${found.arch}` : 'not an executable'} (expected ${expected.format} ${expected.arch})`)
}

const x64 = join(dir, artifactName(version, releaseTargets.find((t) => t.name === 'linux-x64')!))
const arm64 = join(dir, artifactName(version, releaseTargets.find((t) => t.name === 'linux-arm64')!))
try {
  await withExecutableDevnet(x64, async (devnet) => {
    check(true, `linux-x64: devnet from the executable alone in ${devnet.dir} (anvil from npm)`)
    const hash = await settleOneOrder(devnet)
    check(true, `linux-x64: order settled end to end, transaction ${hash} succeeded on chain`)
    await checkArm64(devnet, arm64)
  })
} catch (error) {
  check(false, `linux-x64 end to end: ${(error as Error).message}`)
}

console.log(`release artifacts: ${failures.length === 0 ? 'all checks passed' : `${failures.length} failed`} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
process.exit(failures.length === 0 ? 0 : 1)
