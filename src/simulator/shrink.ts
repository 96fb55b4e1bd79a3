import type { Plan } from './plan.ts'
import type { RunResult } from './world.ts'

/**
 * A smaller plan that still breaks the same invariant: faults taken out one at a time,
 * then orders in halves, quarters and so on (delta debugging), each kept out when the
 * run without it still fails the same way. At most `budget` runs.
 *
 * @example
 * const { plan, result } = await shrink(failingPlan, failingResult, runPlan)
 */
export async function shrink(plan: Plan, result: RunResult, run: (plan: Plan) => Promise<RunResult>, budget = 150): Promise<{ plan: Plan; result: RunResult; runs: number }> {
  const invariant = result.violations[0]!.invariant
  let best = { plan, result }
  let runs = 0
  const stillFails = async (candidate: Plan) => {
    if (runs >= budget) return false
    runs++
    const outcome = await run(candidate)
    if (!outcome.violations.some((violation) => violation.invariant === invariant)) return false
    best = { plan: candidate, result: outcome }
    return true
  }
  // Faults first: fewer faults say most about the cause.
  for (let i = best.plan.faults.length - 1; i >= 0; i--) {
    await stillFails({ ...best.plan, faults: best.plan.faults.filter((_, j) => j !== i) })
  }
  // Then orders, in ever smaller chunks.
  for (let chunk = Math.ceil(best.plan.orders.length / 2); chunk >= 1; chunk = chunk === 1 ? 0 : Math.ceil(chunk / 2)) {
    for (let from = 0; from < best.plan.orders.length; ) {
      const candidate = { ...best.plan, orders: best.plan.orders.filter((_, j) => j < from || j >= from + chunk) }
      if (candidate.orders.length > 0 && (await stillFails(candidate))) continue
      from += chunk
    }
  }
  return { ...best, runs }
}
