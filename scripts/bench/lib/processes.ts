import { readFileSync } from 'node:fs'
import type { Subprocess } from 'bun'
import { sleep } from './stats.ts'

export type Child = {
  pid: number
  /** What the child printed (stdout and stderr), the last `keepOutput` characters. */
  readonly output: string
  /** How many lines printed so far matched a pattern given to `spawnChild`'s `count`. */
  readonly counted: number
  /** The first few of those lines (a failed check names what it counted). */
  readonly countedLines: readonly string[]
  /** Resident memory now, from /proc/<pid>/status (VmRSS), in MiB. */
  rssMiB(): number
  /** Peak resident memory (VmHWM), in MiB. */
  peakRssMiB(): number
  /** SIGTERM, then wait for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>
  readonly exited: Promise<number>
}

/** Starts a process with piped output; keeps the tail of it and counts lines matching `count`. */
export function spawnChild(command: string[], env: Record<string, string | undefined>, options: { keepOutput?: number; count?: RegExp; cwd?: string } = {}): Child {
  // `cwd`: a scratch directory, so a default relative data path never lands in the repository.
  const child: Subprocess<'ignore', 'pipe', 'pipe'> = Bun.spawn(command, { env, cwd: options.cwd, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const keep = options.keepOutput ?? 4 * 1024 * 1024
  let output = ''
  let counted = 0
  const countedLines: string[] = []
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    let partial = ''
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true })
      if (options.count) {
        const lines = (partial + text).split('\n')
        partial = lines.pop() ?? ''
        for (const line of lines) {
          if (!options.count.test(line)) continue
          counted++
          if (countedLines.length < 5) countedLines.push(line)
        }
      }
      output += text
      if (output.length > keep * 2) output = output.slice(-keep)
    }
  }
  void pump(child.stdout)
  void pump(child.stderr)
  return {
    pid: child.pid,
    get output() {
      return output.slice(-keep)
    },
    get counted() {
      return counted
    },
    countedLines,
    rssMiB: () => statusKiB(child.pid, 'VmRSS') / 1024,
    peakRssMiB: () => statusKiB(child.pid, 'VmHWM') / 1024,
    async stop(graceMs = 5_000) {
      if (child.exitCode !== null) return child.exitCode
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      const code = await child.exited
      clearTimeout(timer)
      return code
    },
    exited: child.exited,
  }
}

function statusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const match = status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`)
  return Number(match[1])
}

/**
 * Polls `url` every `intervalMs` until it answers `expect` (200); resolves with the
 * ms since `startedAt` (performance.now()). Rejects if the child exits or time runs out.
 */
export async function waitForOk(
  url: string,
  options: { child?: Child; startedAt?: number; timeoutMs?: number; intervalMs?: number; expect?: number; method?: string } = {},
): Promise<number> {
  const startedAt = options.startedAt ?? performance.now()
  const deadline = startedAt + (options.timeoutMs ?? 30_000)
  let exited = false
  void options.child?.exited.then(() => (exited = true))
  for (;;) {
    try {
      const response = await fetch(url, { method: options.method ?? 'GET' })
      await response.arrayBuffer()
      if (response.status === (options.expect ?? 200)) return performance.now() - startedAt
    } catch {}
    if (exited) throw new Error(`process exited before ${url} answered; output:\n${options.child?.output}`)
    if (performance.now() > deadline) throw new Error(`${url} did not answer in time; output:\n${options.child?.output ?? ''}`)
    await sleep(options.intervalMs ?? 2)
  }
}
