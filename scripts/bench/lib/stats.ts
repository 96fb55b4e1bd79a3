/** The median of a non-empty list (mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of nothing')
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}

/** How far from their median most runs of a side must lie for that median to stand: the spread of runs of the same code on a quiet 2-core machine. */
export const steadyTolerance = 0.25

/**
 * Whether more than half of the runs lie within `tolerance` (a fraction) of their
 * median, so that a disturbance of the machine during some runs did not make the
 * median. One run, or a median of 0, counts as steady (nothing to compare).
 * @example isSteady([15245, 10192, 38232]) // false: only the median itself is within 25 %
 */
export function isSteady(values: readonly number[], tolerance = steadyTolerance): boolean {
  const middle = median(values)
  if (values.length < 2 || middle === 0) return true
  const near = values.filter((value) => Math.abs(value / middle - 1) <= tolerance).length
  return near * 2 > values.length
}

/** Each subject run's ratio to the baseline run beside it (the runs alternate), and their median: `0.95 0.94 0.71 (median 0.94)`. */
export function pairByPair(subject: readonly number[], baseline: readonly number[]): string {
  const ratios = subject.map((value, index) => value / baseline[index]!)
  return `${ratios.map((ratio) => ratio.toFixed(2)).join(' ')} (median ${median(ratios).toFixed(2)})`
}

/** Rounds to `digits` significant decimals for display and JSON. */
export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value)) return value
  const magnitude = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : digits - 1
  const factor = 10 ** magnitude
  return Math.round(value * factor) / factor
}

/** Runs `task` `count` times one after another and returns each result. */
export async function repeat<T>(count: number, task: (run: number) => Promise<T>): Promise<T[]> {
  const results: T[] = []
  for (let run = 0; run < count; run++) results.push(await task(run))
  return results
}

/** Runs `work` over `items` with at most `concurrency` at once, in order of `items`. */
export async function forEachConcurrently<T>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      await work(items[index] as T, index)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker))
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Nearest-rank percentile (0 < p <= 100) of a non-empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of nothing')
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number
}
