/**
 * Deadlines of the request bodies being read, kept by one timer for all of them
 * instead of a timer per request (setting and clearing one cost every rejection more
 * than its checks). A read is given up within `deadlineMs` plus a tenth of it, at most
 * 250 ms more; the timer runs only while some body is being read.
 *
 * @example
 * const deadlines = createBodyDeadlines(10_000)
 * const bytes = await deadlines.within(request.bytes(), () => tooSlow)
 */
export function createBodyDeadlines(deadlineMs: number) {
  const sweepMs = Math.max(10, Math.min(250, Math.ceil(deadlineMs / 10)))
  const reading = new Set<{ until: number; giveUp: () => void }>()
  let timer: ReturnType<typeof setInterval> | undefined

  function sweep() {
    const now = Date.now()
    for (const read of reading) {
      if (read.until > now) continue
      reading.delete(read)
      read.giveUp()
    }
    if (reading.size === 0) {
      clearInterval(timer)
      timer = undefined
    }
  }

  return {
    /** `read`'s result, or a rejection with `late()` once the deadline has passed. */
    within<T>(read: Promise<T>, late: () => Error): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const entry = { until: Date.now() + deadlineMs, giveUp: () => reject(late()) }
        reading.add(entry)
        timer ??= setInterval(sweep, sweepMs)
        read.then(
          (value) => {
            reading.delete(entry)
            resolve(value)
          },
          (error: unknown) => {
            reading.delete(entry)
            reject(error)
          },
        )
      })
    },
  }
}

export type BodyDeadlines = ReturnType<typeof createBodyDeadlines>
