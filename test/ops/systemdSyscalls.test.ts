// The relayer, traced by Debian's strace while it starts, settles an order and drains on
// SIGTERM, makes only the system calls order-relay.service's SystemCallFilter= allows (as
// systemd-analyze expands its groups), and maps memory writable and executable for Bun's
// JIT, which is why the unit leaves MemoryDenyWriteExecute= out. No systemd needs to run.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Subprocess } from 'bun'
import { type Devnet, devnetAccounts, manifestTokensVariable, startDevnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { waitFor } from '../helpers/waitFor.ts'

const repoRoot = resolve(import.meta.dir, '../..')
const strace = '/usr/bin/strace'
const systemdAnalyze = '/usr/bin/systemd-analyze'
const missing = [strace, systemdAnalyze].filter((path) => !existsSync(path))
if (missing.length > 0) {
  console.log(`test/ops/systemdSyscalls.test.ts: skipping: ${missing.join(' and ')} absent (install Debian's packages: apt-get install -y strace systemd)`)
}

/** Every system call of each `@group` systemd-analyze knows, groups inside groups expanded. */
function syscallGroups(): Map<string, string[]> {
  const groups = new Map<string, string[]>()
  let current: string[] | undefined
  for (const line of Bun.spawnSync([systemdAnalyze, 'syscall-filter']).stdout.toString().split('\n')) {
    if (line.startsWith('@')) groups.set(line.trim(), (current = []))
    else if (current && line.trim() && !line.trim().startsWith('#')) current.push(line.trim())
  }
  return groups
}

/** The calls order-relay.service allows: its allow-list lines, minus its `~` deny-list lines. */
function unitAllows(): Set<string> {
  const groups = syscallGroups()
  const expand = (name: string): string[] => (name.startsWith('@') ? (groups.get(name) ?? []).flatMap(expand) : [name])
  const lines = readFileSync(join(repoRoot, 'deploy/systemd/order-relay.service'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('SystemCallFilter='))
    .map((line) => line.slice('SystemCallFilter='.length))
  const allowed = new Set(lines.filter((line) => !line.startsWith('~')).flatMap((line) => line.split(/\s+/).flatMap(expand)))
  for (const denied of lines.filter((line) => line.startsWith('~')).flatMap((line) => line.slice(1).split(/\s+/).flatMap(expand))) allowed.delete(denied)
  return allowed
}

let devnet: Devnet
let scratch: string
let relayer: Subprocess<'ignore', 'ignore', 'ignore'>
let settled: { status: number; body: Record<string, unknown> }
let exitCode: number
let trace: string

beforeAll(async () => {
  if (missing.length > 0) return
  devnet = await startDevnet()
  scratch = mkdtempSync(join(tmpdir(), 'order-relay-strace-'))
  const [port, metricsPort] = [await freePort(), await freePort()]
  // The CLI on the same Bun runtime the release executable embeds, every thread traced.
  relayer = Bun.spawn([strace, '-f', '-qq', '-o', join(scratch, 'trace'), process.execPath, join(repoRoot, 'src/cli/main.ts'), 'relayer'], {
    env: {
      PATH: process.env.PATH,
      RELAYER_PK: devnetAccounts.relayer.privateKey,
      RELAYER_CHAIN_ID: String(devnet.chainId),
      RELAYER_RPC_URL: devnet.rpcUrl,
      RELAYER_BROKER: devnet.manifest.contracts.broker,
      RELAYER_DEPLOYED_AT: String(devnet.manifest.deployedAt),
      ...manifestTokensVariable(devnet.manifest),
      RELAYER_HOST: '127.0.0.1',
      RELAYER_PORT: String(port),
      RELAYER_METRICS_PORT: String(metricsPort),
      RELAYER_DB: join(scratch, 'journal.sqlite'),
      RELAYER_CONFIRMATIONS: '1',
      LOG_FORMAT: 'json',
    },
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'ignore',
  })
  const url = `http://127.0.0.1:${port}`
  await waitFor('the traced relayer to answer GET /health', async () => (await fetch(`${url}/health`).catch(() => undefined))?.ok === true, 60_000, 100)
  const response = await fetch(`${url}/broker`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(await signed(devnet, allocationOrder(devnet)), (_, value) => (typeof value === 'bigint' ? value.toString() : value)),
  })
  settled = { status: response.status, body: (await response.json()) as Record<string, unknown> }
  expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200)
  // SIGTERM to the relayer itself: strace would detach on its own SIGTERM and leave it running.
  // strace writes the traced process's id first on every line and exits with its exit code.
  const relayerPid = Number(/^(\d+) /.exec(readFileSync(join(scratch, 'trace'), 'utf8'))?.[1])
  process.kill(relayerPid, 'SIGTERM')
  exitCode = await relayer.exited
  trace = readFileSync(join(scratch, 'trace'), 'utf8')
}, 120_000)

afterAll(async () => {
  if (relayer && relayer.exitCode === null) relayer.kill('SIGKILL')
  await devnet?.stop()
  if (scratch) rmSync(scratch, { recursive: true, force: true })
}, 30_000)

describe.skipIf(missing.length > 0)('the relayer under strace', () => {
  test('settles an order and stops with exit 0 on SIGTERM', () => {
    expect([settled.status, settled.body.ok]).toEqual([200, true])
    expect(exitCode).toBe(0)
  })

  test("makes only the system calls order-relay.service's SystemCallFilter= allows", () => {
    const used = new Set([...trace.matchAll(/^\d+ +([a-z_0-9]+)\(/gm)].map((match) => match[1]!))
    expect(used.size).toBeGreaterThan(30)
    const allowed = unitAllows()
    // SQLite hands a new journal file to the database's owner (fchown, in @privileged) only
    // when it runs as root, as this test may; the unit's order-relay user never does.
    const rootOnly = process.getuid?.() === 0 ? ['fchown'] : []
    expect([...used].filter((name) => !allowed.has(name)).sort()).toEqual(rootOnly)
  })

  test('maps memory writable and executable (the JIT), which MemoryDenyWriteExecute=yes would refuse', () => {
    expect(trace).toMatch(/\b(mmap|mprotect)\([^)]*PROT_WRITE\|PROT_EXEC/)
  })
})
