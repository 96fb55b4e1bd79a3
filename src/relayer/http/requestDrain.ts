/**
 * Requests being handled, counted from the moment their headers arrived until their
 * answer is ready, so a SIGTERM drain can wait for every one (bodies still arriving
 * included). A counter and not a set of promises: it is touched twice per request.
 * Once `close` is called (at SIGTERM), every answer says `Connection: close`, so a
 * keep-alive client is told, with an answer, that its connection ends.
 */
export function createRequestDrain() {
  let active = 0
  let waiting: (() => void)[] = []
  let closing = false
  let lastArrival = 0
  return {
    /** From now on every answer closes its connection (the relayer is stopping). */
    close() {
      closing = true
      lastArrival = performance.now()
    },
    /**
     * Resolves once no request has arrived for `quietMs` since `close` (requests on
     * open keep-alive connections keep coming while their clients have not yet read a
     * `Connection: close`), or after `maxMs`.
     */
    async quiet(quietMs: number, maxMs: number): Promise<void> {
      const until = performance.now() + maxMs
      for (;;) {
        const left = Math.min(lastArrival + quietMs, until) - performance.now()
        if (left <= 0) return
        await new Promise((resolve) => setTimeout(resolve, left))
      }
    },
    /** Whether answers close their connections (after `close`). */
    get closing() {
      return closing
    },
    enter() {
      active++
      if (closing) lastArrival = performance.now()
    },
    leave() {
      active--
      if (active > 0 || waiting.length === 0) return
      const wake = waiting
      waiting = []
      for (const resolve of wake) resolve()
    },
    /** Requests being handled now. */
    get active() {
      return active
    },
    /** Resolves once no request is being handled (at once when none is). */
    idle(): Promise<void> {
      return active === 0 ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve))
    },
  }
}

export type RequestDrain = ReturnType<typeof createRequestDrain>
