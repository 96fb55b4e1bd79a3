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
 * The last five minutes of `POST /broker` answers, kept for the status page: orders
 * per minute by outcome and latency percentiles (Prometheus keeps the long history).
 */
export function createRecentOrders(now: () => number = Date.now) {
  const answers: Answer[] = []
  const prune = (at: number) => {
    let drop = 0
    while (drop < answers.length && (answers[drop]!.at < at - windowMs || answers.length - drop > maxKept)) drop++
    if (drop > 0) answers.splice(0, drop)
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
      for (const answer of answers) if (answer.at >= at - 60_000) perMinute[answer.code] = (perMinute[answer.code] ?? 0) + 1
      const settled = answers.filter((answer) => answer.code === 'OK').map((answer) => answer.seconds).sort((a, b) => a - b)
      const pick = (q: number) => (settled.length === 0 ? null : settled[Math.min(settled.length - 1, Math.ceil(q * settled.length) - 1)]!)
      return { perMinute, latencySeconds: { count: settled.length, p50: pick(0.5), p90: pick(0.9), p99: pick(0.99) } }
    },
  }
}

export type RecentOrders = ReturnType<typeof createRecentOrders>
