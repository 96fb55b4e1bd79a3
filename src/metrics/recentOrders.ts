const windowMs = 5 * 60_000
const maxKept = 10_000

export type RecentOrdersSummary = {
  /** Answers in the last 60 s, by code (`OK` = settled). */
  perMinute: Record<string, number>
  /** Settlement latency of the orders settled in the last 5 minutes (null when none). */
  latencySeconds: { count: number; p50: number | null; p90: number | null; p99: number | null }
}

/**
 * The last five minutes of `POST /broker` answers (at most the newest 10,000), kept
 * for the status page: orders per minute by outcome and latency percentiles
 * (Prometheus keeps the long history). A ring of numbers: adding one allocates
 * nothing, so a flood of rejections leaves no garbage that outlives its request (an
 * object per answer, kept for seconds, cost each rejection more than its checks).
 * Answers past the window are skipped when read.
 */
export function createRecentOrders(now: () => number = Date.now) {
  const at = new Float64Array(maxKept)
  const seconds = new Float64Array(maxKept)
  const codeOf = new Uint16Array(maxKept)
  // Codes are a small closed set (the wire's and the edge's); each is numbered once.
  const codes: string[] = []
  const numbers = new Map<string, number>()
  let next = 0
  let held = 0
  return {
    add(code: string, took: number) {
      let number = numbers.get(code)
      if (number === undefined) {
        number = codes.push(code) - 1
        numbers.set(code, number)
      }
      at[next] = now()
      seconds[next] = took
      codeOf[next] = number
      next = (next + 1) % maxKept
      if (held < maxKept) held++
    },
    summary(): RecentOrdersSummary {
      const time = now()
      const perMinute: Record<string, number> = {}
      const settled: number[] = []
      for (let i = 0; i < held; i++) {
        const slot = (next - held + i + maxKept) % maxKept
        const when = at[slot]!
        if (when < time - windowMs) continue
        const code = codes[codeOf[slot]!]!
        if (when >= time - 60_000) perMinute[code] = (perMinute[code] ?? 0) + 1
        if (code === 'OK') settled.push(seconds[slot]!)
      }
      settled.sort((a, b) => a - b)
      const pick = (q: number) => (settled.length === 0 ? null : settled[Math.min(settled.length - 1, Math.ceil(q * settled.length) - 1)]!)
      return { perMinute, latencySeconds: { count: settled.length, p50: pick(0.5), p90: pick(0.9), p99: pick(0.99) } }
    },
  }
}

export type RecentOrders = ReturnType<typeof createRecentOrders>
