import { readdirSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on every Linux build that matters). */
const ticksPerSecond = 100

/**
 * CPU seconds a process has used so far, user + system (utime and stime, fields 14
 * and 15 of /proc/<pid>/stat; counted after the `)` that ends the command name, which
 * may itself hold spaces). Ten-millisecond resolution.
 */
export function cpuSeconds(pid: number): number {
  return cpuSecondsOf(readFileSync(`/proc/${pid}/stat`, 'utf8'))
}

/** `cpuSeconds` of a /proc/<pid>/stat line. */
export function cpuSecondsOf(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // fields[0] is field 3 (state), so utime (14) is fields[11] and stime (15) fields[12].
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond
}

/** A relayer process's CPU seconds so far by thread: see `relayerThreadCpu`. */
export type ThreadCpu = { main: number; signer: number; jit: number; other: number }

/**
 * A relayer process's CPU seconds so far, split by thread (`/proc/<pid>/task/<tid>/stat`
 * and `comm`): its main thread (the event loop), the signer thread (the relayer's one
 * Bun Worker), JavaScriptCore's JIT compiler threads, and the rest (the allocator's and
 * collector's helpers, the thread pool that runs the journal's fsync, Bun's HTTP
 * thread, threads gone since): the process's total less the first three.
 */
export function relayerThreadCpu(pid: number): ThreadCpu {
  const split: ThreadCpu = { main: 0, signer: 0, jit: 0, other: 0 }
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string
    let name: string
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
    } catch {
      continue // the thread ended meanwhile
    }
    const seconds = cpuSecondsOf(stat)
    if (Number(tid) === pid) split.main += seconds
    else if (name.startsWith('Worker')) split.signer += seconds
    else if (name.includes('JIT')) split.jit += seconds
  }
  split.other = Math.max(0, cpuSeconds(pid) - split.main - split.signer - split.jit)
  return split
}

/**
 * The whole machine's CPU time so far, in seconds summed over its cores, from the
 * first line of /proc/stat: `busy` (user, nice, system, irq, softirq: every process,
 * the flood's and the probe's clients included), `steal` (taken by the hypervisor for
 * other guests) and `total` (all of it, idle and iowait too).
 */
export type MachineCpu = { busy: number; steal: number; total: number }

export function machineCpu(): MachineCpu {
  return machineCpuOf(readFileSync('/proc/stat', 'utf8'))
}

/** `machineCpu` of a /proc/stat text. */
export function machineCpuOf(stat: string): MachineCpu {
  const line = stat.split('\n').find((each) => each.startsWith('cpu '))
  if (!line) throw new Error('/proc/stat has no cpu line')
  // user nice system idle iowait irq softirq steal (guest time is inside user already).
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1, 9).map((field) => Number(field ?? 0) / ticksPerSecond)
  const busy = user! + nice! + system! + irq! + softirq!
  return { busy, steal: steal!, total: busy + idle! + iowait! + steal! }
}

/** The shares of the machine's CPU time between two readings: busy, and stolen by the hypervisor. */
export function machineShares(before: MachineCpu, after: MachineCpu): { busy: number; steal: number } {
  const total = after.total - before.total
  return total > 0 ? { busy: (after.busy - before.busy) / total, steal: (after.steal - before.steal) / total } : { busy: 0, steal: 0 }
}

/** The 1-, 5- and 15-minute load averages, as /proc/loadavg prints them. */
export function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
}

/**
 * CPU seconds used so far by the processes of one run (anvil, the relayer(s), and this
 * bench process, which plays the clients): the run's own work, not other work on the machine.
 */
export function workCpu(pids: readonly number[]): number {
  return pids.reduce((total, pid) => total + cpuSeconds(pid), 0) + cpuSeconds(process.pid)
}

/** The share of all cores that `cpu` seconds of work fill in `seconds` of wall time. */
export const busyShare = (cpu: number, seconds: number) => cpu / (seconds * availableParallelism())
