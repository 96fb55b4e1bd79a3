/** One answered `POST /broker`. */
type Answer = { at: number; code: string; seconds: number }

const windowMs = 5 * 60_000
const maxKept = 10_000

export type RecentOrdersSummary = {
  /** Answers in the last 60 s, by code (`OK` = settled). */
  perMinute: Record<string, number>
  /** Settlement latency of the orders settled in the last 5 minutes (null when none). */
  latencySeconds: { count: number; p50: number | null; p90: number | null; p99: number | null }
}

/**
 * The last five minutes of `POST /broker` answers (at most 10,000), kept for the
 * status page: orders per minute by outcome and latency percentiles (Prometheus
 * keeps the long history). Adding is O(1): expired answers are skipped by moving a
 * start index, and the array is compacted only once half of it is dead.
 */
export function createRecentOrders(now: () => number = Date.now) {
  let answers: Answer[] = []
  let start = 0
  const prune = (at: number) => {
    while (start < answers.length && (answers[start]!.at < at - windowMs || answers.length - start > maxKept)) start++
    if (start > 1_024 && start * 2 > answers.length) {
      answers = answers.slice(start)
      start = 0
    }
  }
  return {
    add(code: string, seconds: number) {
      const at = now()
      answers.push({ at, code, seconds })
      prune(at)
    },
    summary(): RecentOrdersSummary {
      const at = now()
      prune(at)
      const perMinute: Record<string, number> = {}
      const settled: number[] = []
      for (let i = start; i < answers.length; i++) {
        const answer = answers[i]!
        if (answer.at >= at - 60_000) perMinute[answer.code] = (perMinute[answer.code] ?? 0) + 1
        if (answer.code === 'OK') settled.push(answer.seconds)
      }
      settled.sort((a, b) => a - b)
      const pick = (q: number) => (settled.length === 0 ? null : settled[Math.min(settled.length - 1, Math.ceil(q * settled.length) - 1)]!)
      return { perMinute, latencySeconds: { count: settled.length, p50: pick(0.5), p90: pick(0.9), p99: pick(0.99) } }
    },
  }
}

export type RecentOrders = ReturnType<typeof createRecentOrders>
