import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { Instance } from 'prool'

export type AnvilParameters = {
  /** The anvil executable (see `findAnvil`). */
  binary: string
  chainId: number
  port: number
  host: string
  forkUrl?: string
  /** With `forkUrl`: the block to fork at. */
  forkBlockNumber?: bigint
  /** Keep the state of only this many recent blocks (a non-archive node). */
  pruneHistory?: number
}

type AnvilProcess = Subprocess<'ignore', 'pipe', 'pipe'>

/** A fork may take a while to fetch its first block; a start slower than this is a failure. */
const startTimeoutMs = 60_000

/** Children still running, with their throw-away HOMEs: killed (and the HOMEs removed) if this process ends without stopping them. */
const running = new Map<AnvilProcess, string>()
let cleanupInstalled = false

/**
 * Installed with the first anvil: kills every running anvil when this process exits,
 * or dies of SIGINT, SIGTERM or SIGHUP that nobody else handles (as execa's cleanup
 * did for prool's anvil). A program with its own handler (`order-relay devnet`)
 * stops its devnet itself, in its own order.
 */
function installCleanup() {
  if (cleanupInstalled) return
  cleanupInstalled = true
  const killAll = () => {
    for (const [child, home] of running) {
      child.kill('SIGKILL')
      // The process is ending: the removal that waits for anvil's exit would never run.
      rmSync(home, { recursive: true, force: true })
    }
  }
  process.once('exit', killAll)
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) return
      killAll()
      // Ours was the only handler: end the way the signal would have without it.
      process.removeListener(signal, onSignal)
      process.kill(process.pid, signal)
    }
    process.on(signal, onSignal)
  }
}

/** The command line for anvil. */
export function anvilArgs(parameters: AnvilParameters): string[] {
  const args = ['--chain-id', String(parameters.chainId), '--port', String(parameters.port), '--host', parameters.host]
  if (parameters.forkUrl) args.push('--fork-url', parameters.forkUrl)
  if (parameters.forkUrl && parameters.forkBlockNumber !== undefined) args.push('--fork-block-number', parameters.forkBlockNumber.toString())
  if (parameters.pruneHistory !== undefined) args.push('--prune-history', String(parameters.pruneHistory))
  return args
}

/** Calls `onLine` for every line of `stream` until it ends. */
async function eachLine(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder()
  let rest = ''
  for await (const chunk of stream) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n')
    rest = lines.pop() ?? ''
    for (const line of lines) if (line.trim()) onLine(line)
  }
  if (rest.trim()) onLine(rest)
}

/**
 * anvil as a prool instance whose process we spawn ourselves. prool's own
 * `Instance.anvil` keeps its start-up check attached for the node's whole life: any
 * later stderr line without "Warning" in it kills anvil (one error log under load
 * and every test after it sees a dead chain). Its execa process also buffers all of
 * anvil's stdout in memory. Here stdout is read and dropped line by line; stderr
 * lines are reported as `stderr` events and never kill anvil; the start fails only
 * when anvil exits (or is not listening within a minute), with its stderr as the
 * reason; an exit is reported as an `exit` event.
 */
export const anvilInstance = Instance.define((parameters: AnvilParameters) => {
  let child: AnvilProcess | undefined
  return {
    name: 'anvil',
    host: parameters.host,
    port: parameters.port,
    _internal: {
      get process() {
        return child
      },
    },
    start(_options, { emitter }) {
      return new Promise<void>((resolve, reject) => {
        let started = false
        const early: string[] = []
        // anvil writes the states of older blocks under $HOME/.foundry/anvil/tmp once a
        // chain has a few hundred blocks (876 MB for 3,000), and leaves them there when it
        // is stopped: every long test run or benchmark filled the disk. Its HOME is a
        // throw-away directory, removed once it has exited.
        const home = mkdtempSync(join(tmpdir(), 'order-relay-anvil-'))
        const spawned = Bun.spawn([parameters.binary, ...anvilArgs(parameters)], {
          stdin: 'ignore',
          stdout: 'pipe',
          stderr: 'pipe',
          env: { ...process.env, HOME: home, FOUNDRY_DISABLE_NIGHTLY_WARNING: 'true' },
        })
        void spawned.exited.finally(() => rmSync(home, { recursive: true, force: true }))
        child = spawned
        installCleanup()
        running.set(spawned, home)
        const fail = (why: string) => {
          if (started) return
          started = true
          spawned.kill('SIGKILL')
          reject(new Error(`Failed to start anvil: ${why}`))
        }
        void eachLine(spawned.stdout, (line) => {
          emitter.emit('stdout', line)
          emitter.emit('message', line)
          if (!started && line.includes('Listening on')) {
            started = true
            clearTimeout(slow)
            emitter.emit('listening')
            resolve()
          }
        })
        // A line on stderr does not fail the start (a warning or a log line may come
        // before "Listening on"); anvil exiting does, with those lines as the reason.
        const stderrRead = eachLine(spawned.stderr, (line) => {
          emitter.emit('stderr', line)
          emitter.emit('message', line)
          if (!started) early.push(line)
        })
        const slow = setTimeout(() => fail(`not listening after ${startTimeoutMs / 1000} s${early.length ? `:\n${early.join('\n')}` : ''}`), startTimeoutMs)
        void spawned.exited.finally(() => clearTimeout(slow))
        // Report the exit once its last stderr lines are read (they say why it failed).
        void Promise.all([spawned.exited, stderrRead.catch(() => {})]).then(([code]) => {
          running.delete(spawned)
          fail(early.length ? early.join('\n') : `exited with code ${code}`)
          emitter.emit('exit', code, (spawned.signalCode ?? null) as NodeJS.Signals | null)
        })
      })
    },
    async stop() {
      const stopping = child
      if (!stopping || stopping.exitCode !== null || stopping.signalCode !== null) return
      stopping.kill('SIGTERM')
      const killer = setTimeout(() => stopping.kill('SIGKILL'), 5_000)
      await stopping.exited
      clearTimeout(killer)
    },
  }
})
