// The devnet's anvil outlives its own error output (prool's Instance.anvil killed it on
// any stderr line after start: the CI run where every relayer test after one timed out
// saw a dead chain), reports an exit nobody asked for, and fails a start clearly.
import { afterAll, expect, test } from 'bun:test'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { type AnvilExit, type Devnet, devnetAccounts, findAnvil, startDevnet } from '../../src/devnet/index.ts'
import { processesMatching } from '../helpers/processes.ts'
import { waitFor } from '../helpers/waitFor.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-anvil-'))
const started: Devnet[] = []
afterAll(async () => {
  for (const devnet of started) await devnet.stop()
  rmSync(dir, { recursive: true, force: true })
})

const errorLine = 'ERROR anvil::server: error serving connection: connection reset by peer'

/**
 * A real anvil behind a shell that writes an error line to stderr each time it gets
 * SIGUSR1, as anvil does when it logs an error while running.
 */
function anvilThatLogsErrors(): string {
  const path = join(dir, 'anvil-with-errors.sh')
  writeFileSync(
    path,
    `#!/bin/sh
"${findAnvil()}" "$@" &
child=$!
trap 'echo "${errorLine}" >&2' USR1
trap 'kill -TERM $child; wait $child; exit 0' TERM INT
while kill -0 $child 2>/dev/null; do wait $child; done
`,
  )
  chmodSync(path, 0o755)
  return path
}

/** 'gone' once the process has ended (a zombie waiting to be reaped counts as ended). */
async function runningOrGone(pid: number): Promise<'running' | 'gone'> {
  for (let i = 0; i < 50; i++) {
    let stat: string
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    } catch {
      return 'gone'
    }
    const state = stat.slice(stat.lastIndexOf(') ') + 2)[0]
    if (state === 'Z' || state === 'X') return 'gone'
    await Bun.sleep(20)
  }
  return 'running'
}

async function settlesATransfer(devnet: Devnet) {
  const hash = await devnet.wallet('consumer').sendTransaction({ to: devnetAccounts.payee.address, value: 1n })
  const receipt = await devnet.publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 })
  return receipt.status
}

test('an error line on anvil stderr is passed on and the chain keeps running', async () => {
  const lines: string[] = []
  const devnet = await startDevnet({ anvilBinary: anvilThatLogsErrors(), onAnvilStderr: (line) => lines.push(line) })
  started.push(devnet)
  let exited: AnvilExit | undefined
  void devnet.unexpectedExit.then((exit) => (exited = exit))

  process.kill(devnet.anvilPid, 'SIGUSR1')
  while (lines.length === 0) await Bun.sleep(10)
  expect(lines).toEqual([errorLine])
  await Bun.sleep(200)

  expect(exited).toBeUndefined()
  expect(await settlesATransfer(devnet)).toBe('success')
}, 60_000)

test('a line on stderr before anvil listens is passed on and does not fail the start', async () => {
  const path = join(dir, 'anvil-warns-first.sh')
  writeFileSync(path, `#!/bin/sh\necho "WARN anvil: something to say before listening" >&2\nexec "${findAnvil()}" "$@"\n`)
  chmodSync(path, 0o755)
  const lines: string[] = []
  const devnet = await startDevnet({ anvilBinary: path, deploy: false, onAnvilStderr: (line) => lines.push(line) })
  started.push(devnet)
  expect(lines).toEqual(['WARN anvil: something to say before listening'])
  expect(await devnet.publicClient.getChainId()).toBe(421614)
}, 30_000)

test('anvil killed from outside: unexpectedExit says how, with its last stderr lines', async () => {
  const devnet = await startDevnet({ deploy: false, onAnvilStderr: () => {} })
  started.push(devnet)
  process.kill(devnet.anvilPid, 'SIGKILL')
  const exit = await devnet.unexpectedExit
  expect(exit.signal).toBe('SIGKILL')
  expect(exit.stderr).toEqual([])
  await devnet.stop()
}, 30_000)

test('stop() is not an unexpected exit, and leaves no anvil behind', async () => {
  const devnet = await startDevnet({ deploy: false })
  let exited = false
  void devnet.unexpectedExit.then(() => (exited = true))
  await devnet.stop()
  await Bun.sleep(100)
  expect(exited).toBe(false)
  expect(await runningOrGone(devnet.anvilPid)).toBe('gone')
}, 30_000)

test('a port already taken fails the start with anvil own words', async () => {
  const taken: Server = createServer()
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
  const port = (taken.address() as { port: number }).port
  try {
    await expect(startDevnet({ port, deploy: false })).rejects.toThrow(/Failed to start anvil: .*(in use|bind)/is)
  } finally {
    taken.close()
  }
}, 30_000)

test('a script killed by SIGTERM or SIGINT while its devnet runs leaves no anvil and no anvil HOME behind, and still dies of the signal', async () => {
  const script = join(dir, 'holds-a-devnet.ts')
  const devnetModule = resolve(import.meta.dir, '../../src/devnet/index.ts')
  writeFileSync(
    script,
    `import { startDevnet } from ${JSON.stringify(devnetModule)}
const devnet = await startDevnet({ deploy: false, onAnvilStderr: () => {} })
console.log('pid', devnet.anvilPid)
await Bun.sleep(60_000)
`,
  )
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const child = Bun.spawn([process.execPath, script], { stdout: 'pipe', stderr: 'inherit', stdin: 'ignore' })
    const reader = child.stdout.getReader()
    let text = ''
    while (!text.includes('\n')) text += new TextDecoder().decode((await reader.read()).value)
    const anvilPid = Number(text.match(/pid (\d+)/)![1])
    expect(await processesMatching(`${anvilPid} `)).toHaveLength(1)
    const home = readFileSync(`/proc/${anvilPid}/environ`, 'utf8').split('\0').find((entry) => entry.startsWith('HOME='))!.slice('HOME='.length)
    expect(existsSync(home)).toBe(true)
    child.kill(signal)
    await child.exited
    expect(child.signalCode).toBe(signal)
    expect({ signal, anvil: await runningOrGone(anvilPid) }).toEqual({ signal, anvil: 'gone' })
    // Its throw-away HOME went with it (the script ended before anvil's exit could be awaited).
    expect({ signal, home: existsSync(home) }).toEqual({ signal, home: false })
  }
}, 30_000)

test('a long chain leaves nothing on disk: the states anvil writes go to a throw-away HOME, removed at stop', async () => {
  const devnet = await startDevnet({ deploy: false })
  const environ = readFileSync(`/proc/${devnet.anvilPid}/environ`, 'utf8').split('\0')
  const home = environ.find((entry) => entry.startsWith('HOME='))!.slice('HOME='.length)
  expect(home.startsWith(tmpdir())).toBe(true)
  try {
    // A few thousand blocks: anvil then keeps older states on disk under $HOME/.foundry/anvil/tmp.
    for (let i = 0; i < 30; i++) await devnet.testClient.mine({ blocks: 100 })
    expect(existsSync(join(home, '.foundry', 'anvil', 'tmp'))).toBe(true)
  } finally {
    await devnet.stop()
  }
  await waitFor('the throw-away HOME to be removed', () => !existsSync(home))
}, 60_000)

test('pruneHistory keeps the state of only the last N blocks (the benchmarks run anvil so)', async () => {
  const devnet = await startDevnet({ deploy: false, pruneHistory: 4 })
  started.push(devnet)
  await devnet.testClient.mine({ blocks: 1 })
  const old = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
  await devnet.testClient.mine({ blocks: 10 })
  const head = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
  const address = devnetAccounts.consumer.address
  expect(await devnet.publicClient.getBalance({ address, blockNumber: head - 1n })).toBeGreaterThan(0n)
  const error = await devnet.publicClient.getBalance({ address, blockNumber: old }).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(Error)
  expect(String((error as Error).message)).toMatch(/BlockOutOfRangeError/)
})
