// The relayer and the indexer, traced by Debian's strace while each starts, does its work
// (an order settled; GET /activity) and stops on SIGTERM, make only the system calls their
// unit's SystemCallFilter= allows (as systemd-analyze expands its groups), and map memory
// writable and executable for Bun's JIT, which is why the units leave
// MemoryDenyWriteExecute= out. No systemd needs to run.
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

/** The calls a unit in deploy/systemd allows: its allow-list lines, minus its `~` deny-list lines. */
function unitAllows(unit: string): Set<string> {
  const groups = syscallGroups()
  const expand = (name: string): string[] => (name.startsWith('@') ? (groups.get(name) ?? []).flatMap(expand) : [name])
  const lines = readFileSync(join(repoRoot, 'deploy/systemd', unit), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('SystemCallFilter='))
    .map((line) => line.slice('SystemCallFilter='.length))
  const allowed = new Set(lines.filter((line) => !line.startsWith('~')).flatMap((line) => line.split(/\s+/).flatMap(expand)))
  for (const denied of lines.filter((line) => line.startsWith('~')).flatMap((line) => line.slice(1).split(/\s+/).flatMap(expand))) allowed.delete(denied)
  return allowed
}

type Traced = { exitCode: number; trace: string }

let devnet: Devnet
let scratch: string
const running: Subprocess<'ignore', 'ignore', 'ignore'>[] = []

/**
 * Runs `order-relay <command>` (the CLI on the same Bun runtime the release executable
 * embeds) under `strace -f` with `env`, waits for `GET /health` on `port`, runs `exercise`,
 * then sends SIGTERM to the traced process itself (strace would detach on its own SIGTERM and
 * leave it running) and returns its exit code and the trace.
 */
async function traced(command: string, env: Record<string, string>, port: number, exercise: () => Promise<void>): Promise<Traced> {
  const traceFile = join(scratch, `${command}.trace`)
  const child = Bun.spawn([strace, '-f', '-qq', '-o', traceFile, process.execPath, join(repoRoot, 'src/cli/main.ts'), command], {
    env: { PATH: process.env.PATH ?? '', LOG_FORMAT: 'json', ...env },
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'ignore',
  })
  running.push(child)
  await waitFor(`the traced ${command} to answer GET /health`, async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined))?.ok === true, 60_000, 100)
  await exercise()
  // strace writes the traced process's id first on every line and exits with its exit code.
  process.kill(Number(/^(\d+) /.exec(readFileSync(traceFile, 'utf8'))?.[1]), 'SIGTERM')
  const exitCode = await child.exited
  return { exitCode, trace: readFileSync(traceFile, 'utf8') }
}

/**
 * The system calls a trace holds, outside the unit's filter. A name strace gives a number
 * it read as negative (`syscall_0xffff…`; once 0x…92, -110, the value of -ETIMEDOUT that a
 * futex wait returns, read where a call's number was expected) is no call: none has such a
 * number, and the kernel runs nothing for one.
 */
function outsideFilter(trace: string, unit: string): string[] {
  const calls = [...trace.matchAll(/^\d+ +([a-z_0-9]+)\(/gm)].map((match) => match[1]!)
  const used = new Set(calls.filter((name) => !/^syscall_0xffffffff[0-9a-f]{8}$/.test(name)))
  expect(used.size).toBeGreaterThan(30)
  const allowed = unitAllows(unit)
  return [...used].filter((name) => !allowed.has(name)).sort()
}

// SQLite hands a new journal file to the database's owner (fchown, in @privileged) only when it
// runs as root, as this test may; the units' order-relay user never does.
const rootOnly = process.getuid?.() === 0 ? ['fchown'] : []

let relayer: Traced
let indexer: Traced
let settled: { status: number; body: Record<string, unknown> }
let activity: { status: number; body: Record<string, unknown> }

beforeAll(async () => {
  if (missing.length > 0) return
  devnet = await startDevnet()
  scratch = mkdtempSync(join(tmpdir(), 'order-relay-strace-'))
  const [relayerPort, relayerMetrics, indexerPort, indexerMetrics] = [await freePort(), await freePort(), await freePort(), await freePort()]
  relayer = await traced(
    'relayer',
    {
      RELAYER_PK: devnetAccounts.relayer.privateKey,
      RELAYER_CHAIN_ID: String(devnet.chainId),
      RELAYER_RPC_URL: devnet.rpcUrl,
      RELAYER_BROKER: devnet.manifest.contracts.broker,
      RELAYER_DEPLOYED_AT: String(devnet.manifest.deployedAt),
      ...manifestTokensVariable(devnet.manifest),
      RELAYER_HOST: '127.0.0.1',
      RELAYER_PORT: String(relayerPort),
      RELAYER_METRICS_PORT: String(relayerMetrics),
      RELAYER_DB: join(scratch, 'journal.sqlite'),
      RELAYER_CONFIRMATIONS: '1',
    },
    relayerPort,
    async () => {
      const response = await fetch(`http://127.0.0.1:${relayerPort}/broker`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(await signed(devnet, allocationOrder(devnet)), (_, value) => (typeof value === 'bigint' ? value.toString() : value)),
      })
      settled = { status: response.status, body: (await response.json()) as Record<string, unknown> }
      expect((await fetch(`http://127.0.0.1:${relayerMetrics}/metrics`)).status).toBe(200)
    },
  )
  const { registry, inbox, pool, escrow } = devnet.manifest.contracts
  indexer = await traced(
    'indexer',
    {
      INDEXER_CHAIN_ID: String(devnet.chainId),
      INDEXER_RPC_URL: devnet.rpcUrl,
      INDEXER_ADDRESSES: [registry, inbox, pool, escrow].join(','),
      INDEXER_DEPLOYED_AT: String(devnet.manifest.deployedAt),
      INDEXER_HOST: '127.0.0.1',
      INDEXER_PORT: String(indexerPort),
      INDEXER_METRICS_PORT: String(indexerMetrics),
      INDEXER_DB: join(scratch, 'store.sqlite'),
    },
    indexerPort,
    async () => {
      await devnet.testClient.mine({ blocks: 1 })
      const response = await fetch(`http://127.0.0.1:${indexerPort}/activity`)
      activity = { status: response.status, body: (await response.json()) as Record<string, unknown> }
      expect((await fetch(`http://127.0.0.1:${indexerMetrics}/metrics`)).status).toBe(200)
    },
  )
}, 180_000)

afterAll(async () => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL')
  await devnet?.stop()
  if (scratch) rmSync(scratch, { recursive: true, force: true })
}, 30_000)

describe.skipIf(missing.length > 0)('the relayer and the indexer under strace', () => {
  test('the relayer settles an order and the indexer serves GET /activity; both stop with exit 0 on SIGTERM', () => {
    expect([settled.status, settled.body.ok]).toEqual([200, true])
    expect(activity.status).toBe(200)
    expect([relayer.exitCode, indexer.exitCode]).toEqual([0, 0])
  })

  test("the relayer makes only the system calls order-relay.service's SystemCallFilter= allows", () => {
    expect(outsideFilter(relayer.trace, 'order-relay.service')).toEqual(rootOnly)
  })

  test("the indexer makes only the system calls order-relay-indexer.service's SystemCallFilter= allows", () => {
    expect(outsideFilter(indexer.trace, 'order-relay-indexer.service')).toEqual(rootOnly)
  })

  test('both map memory writable and executable (the JIT), which MemoryDenyWriteExecute=yes would refuse', () => {
    for (const { trace } of [relayer, indexer]) expect(trace).toMatch(/\b(mmap|mprotect)\([^)]*PROT_WRITE\|PROT_EXEC/)
  })
})
