import { type Plan, planFor } from './plan.ts'
import { shrink } from './shrink.ts'
import { runPlan, type RunResult } from './world.ts'

/** A seed whose run broke an invariant: its plan shrunk, the run of that plan, and the seed's own run. */
export type SeedFailure = { seed: number; plan: Plan; result: RunResult; original: RunResult; shrinkRuns: number }

export type SeedsReport = { ran: number; orders: number; faults: number; simulatedMs: number; cpuSeconds: number; seconds: number; failures: SeedFailure[] }

/**
 * Runs seeds `from`, `from + stride`, … (stride 1 unless given: a process of several
 * sharing the seeds takes every `stride`-th) one after another until `count` ran or
 * `budgetSeconds` passed (wall time: a time box, as CI's is), each a whole simulated run;
 * a failing seed is shrunk before it is reported (unless `shrink` is false: a proof
 * needs only to know it failed). `replicasOnly` skips the seeds whose plan runs a single
 * relayer, keeping the others' numbers (the proof of a fix only replicas run: those seeds
 * never reach it). `onSeed` hears of each run (for progress lines).
 *
 * @example
 * const report = await runSeeds({ from: 1, count: 2_000, budgetSeconds: 120 })
 */
export async function runSeeds(options: { from: number; count: number; stride?: number; budgetSeconds?: number; stopAtFirst?: boolean; shrink?: boolean; replicasOnly?: boolean; onSeed?: (seed: number, result: RunResult, report: SeedsReport) => void }): Promise<SeedsReport> {
  const report: SeedsReport = { ran: 0, orders: 0, faults: 0, simulatedMs: 0, cpuSeconds: 0, seconds: 0, failures: [] }
  const cpuAtStart = cpuSeconds()
  const startedAt = performance.now()
  const elapsed = () => (performance.now() - startedAt) / 1_000
  const stride = options.stride ?? 1
  for (let seed = options.from, ran = 0; ran < options.count; seed += stride, ran++) {
    if (options.budgetSeconds !== undefined && elapsed() >= options.budgetSeconds) break
    const plan = planFor(seed)
    if (options.replicasOnly && !plan.replicas) continue
    const result = await runPlan(plan)
    report.ran++
    report.orders += result.stats.orders
    report.faults += result.stats.faults
    report.simulatedMs += result.stats.simulatedMs
    if (result.violations.length > 0) {
      const shrunk = options.shrink === false ? { plan, result, runs: 0 } : await shrink(plan, result, runPlan)
      report.failures.push({ seed, plan: shrunk.plan, result: shrunk.result, original: result, shrinkRuns: shrunk.runs })
    }
    report.cpuSeconds = cpuSeconds() - cpuAtStart
    report.seconds = elapsed()
    options.onSeed?.(seed, result, report)
    if (options.stopAtFirst && report.failures.length > 0) break
  }
  report.cpuSeconds = cpuSeconds() - cpuAtStart
  report.seconds = elapsed()
  return report
}

/** This process's CPU seconds so far (user + system). */
function cpuSeconds(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1e6
}
