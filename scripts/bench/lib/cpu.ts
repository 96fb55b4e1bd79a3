import { readFileSync } from 'node:fs'
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
