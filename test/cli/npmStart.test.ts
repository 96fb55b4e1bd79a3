// `npm start` as a user runs it: a signal sent to the npm process stops bun and
// anvil and frees every port (npm forwards SIGINT/SIGTERM to its script, which
// `exec`s bun: a `sh -c` in between would die and leave bun orphaned), and the next step it prints
// works from any directory.
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { devnetAccounts } from '../../src/devnet/index.ts'
import { freePortBase, processesMatching, watchOutput } from '../helpers/processes.ts'
import { waitFor } from '../helpers/waitFor.ts'

const repoRoot = resolve(import.meta.dir, '../..')
const dir = mkdtempSync(join(tmpdir(), 'order-relay-npm-start-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** True when something accepts connections on 127.0.0.1:port. */
const listening = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => (socket.destroy(), done(true)))
    socket.once('error', () => done(false))
  })

/**
 * `npm start` on free ports, started from a subfolder of the repository, once it says
 * it is ready. `ownGroup`: in a process group of its own (through setsid), as a
 * terminal runs it, so Ctrl-C can be played by signalling the whole group.
 */
async function npmStart(name: string, ownGroup = false) {
  const base = await freePortBase()
  const manifest = join(dir, `${name}.json`)
  const command = ['npm', 'start', '--', '--port-base', String(base), '--manifest', manifest]
  const child = Bun.spawn(ownGroup ? ['setsid', ...command] : command, {
    cwd: join(repoRoot, 'docs'),
    stdout: 'pipe',
    stderr: 'pipe',
    stdin: 'ignore',
  })
  const output = watchOutput(child)
  try {
    await output.waitFor(/Ctrl-C stops everything/, 90_000)
  } catch (error) {
    // Not ours to leave behind: stop whatever did start.
    for (const line of [...(await processesMatching(`--port-base ${base} `)), ...(await processesMatching(`--port ${base} `))]) {
      process.kill(Number(line.trim().split(/\s+/)[0]), 'SIGKILL')
    }
    child.kill('SIGKILL')
    throw error
  }
  const ports = [base, base + 1, base + 2]
  return { base, child, output, manifest, ports }
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} to the npm process stops bun and anvil and frees the ports`, async () => {
    const { base, child, output, ports } = await npmStart(signal)
    try {
      // npm runs the script with `exec`: no shell stands between npm and bun.
      const started = await processesMatching(`--port-base ${base} `)
      expect(started.map((line) => line.trim().split(/\s+/).slice(1, 3).join(' '))).toEqual(['npm start', 'bun src/cli/main.ts'])
      expect(await processesMatching(`--port ${base} `)).toHaveLength(1)
      expect(await Promise.all(ports.map(listening))).toEqual([true, true, true])
    } finally {
      child.kill(signal)
    }
    // bun stopped everything and exited 0; npm passes that on.
    expect(await child.exited).toBe(0)
    expect(output.text).toContain('stopping relayer, indexer and anvil')
    expect(await processesMatching(`--port-base ${base} `)).toEqual([])
    expect(await processesMatching(`--port ${base} `)).toEqual([])
    expect(await Promise.all(ports.map(listening))).toEqual([false, false, false])
  }, 120_000)
}

test('Ctrl-C (SIGINT to the whole process group: npm, bun and anvil) stops everything once, exit 0', async () => {
  const { base, child, output, ports } = await npmStart('ctrl-c', true)
  try {
    expect(await processesMatching(`--port ${base} `)).toHaveLength(1)
  } finally {
    // setsid made npm the leader of its own group: -pid is that group.
    process.kill(-child.pid, 'SIGINT')
    expect(await child.exited).toBe(0)
  }
  expect(output.text).toContain('stopping relayer, indexer and anvil')
  expect(output.text).not.toContain('anvil stopped on its own')
  expect(await processesMatching(`--port-base ${base} `)).toEqual([])
  expect(await processesMatching(`--port ${base} `)).toEqual([])
  expect(await Promise.all(ports.map(listening))).toEqual([false, false, false])
}, 120_000)

// Which process of the group sees Ctrl-C first is up to the scheduler: on a busy machine
// anvil (which exits 0 on SIGINT) can be gone before bun has run its handler. Each order
// is played here on purpose: the one process first, then the whole group.
for (const first of ['anvil', 'bun', 'npm'] as const) {
  test(`Ctrl-C reaching ${first} first, then the whole group: everything stops, exit 0`, async () => {
    const { base, child, output, ports } = await npmStart(`ctrl-c-${first}`, true)
    try {
      const pidOf = async (needle: string) => Number((await processesMatching(needle))[0]!.trim().split(/\s+/)[0])
      const pids = {
        anvil: await pidOf(`--port ${base} `),
        bun: await pidOf(`bun src/cli/main.ts devnet --port-base ${base} `),
        npm: child.pid,
      }
      process.kill(pids[first], 'SIGINT')
      // The first one has acted on it: anvil is gone, or bun (told directly or by npm) is stopping.
      if (first === 'anvil') await waitFor('anvil to exit', async () => !(await listening(base)), 15_000)
      else await waitFor('bun to start stopping', () => output.text.includes('stopping relayer, indexer and anvil'), 15_000)
    } finally {
      process.kill(-child.pid, 'SIGINT')
    }
    expect({ exit: await child.exited, output: output.text.includes('anvil stopped on its own') ? output.text : 'no "anvil stopped on its own"' }).toEqual({
      exit: 0,
      output: 'no "anvil stopped on its own"',
    })
    expect(await processesMatching(`--port-base ${base} `)).toEqual([])
    expect(await processesMatching(`--port ${base} `)).toEqual([])
    expect(await Promise.all(ports.map(listening))).toEqual([false, false, false])
  }, 120_000)
}

test('the command npm start prints settles an order when run from another directory', async () => {
  const { child, output, manifest } = await npmStart('printed')
  try {
    const next = output.text.split('\n').findIndex((line) => line.startsWith('Next: settle an order'))
    const printed = output.text.split('\n')[next + 1]!.trim()
    expect(printed).toBe(`${repoRoot}/node_modules/.bin/bun ${repoRoot}/src/cli/main.ts order --manifest ${manifest}`)
    // From a folder with no node_modules, and no bun or npx on PATH.
    const run = Bun.spawnSync(['sh', '-c', printed], { cwd: dir, env: { PATH: '/usr/bin:/bin' }, stdout: 'pipe', stderr: 'pipe' })
    expect(run.stderr.toString()).toContain(`relayer http://127.0.0.1:`)
    expect(run.exitCode).toBe(0)
    const success = JSON.parse(run.stdout.toString())
    expect(success.ok).toBe(true)
    expect(success.brokered.consumer).toBe(devnetAccounts.consumer.address)
  } finally {
    child.kill('SIGTERM')
    await child.exited
  }
}, 120_000)
