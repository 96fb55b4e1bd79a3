/**
 * Wakes whoever waits for the next change (new events, a rewind, a head read): one
 * promise shared by all the waiters of a round, so a thousand streams cost one
 * resolve each, not a timer or a listener each.
 *
 * @example
 * const signal = createSignal()
 * await signal.next(15_000) // resolves at the next notify(), or after 15 s
 */
export function createSignal() {
  let round: { promise: Promise<void>; resolve: () => void } | undefined
  return {
    notify() {
      const current = round
      round = undefined
      current?.resolve()
    },
    /** Resolves at the next `notify`, or after `timeoutMs`, or when `abort` fires. */
    next(timeoutMs: number, abort?: AbortSignal): Promise<void> {
      if (!round) {
        let resolve!: () => void
        const promise = new Promise<void>((done) => (resolve = done))
        round = { promise, resolve }
      }
      const shared = round.promise
      return new Promise<void>((resolve) => {
        const timer = setTimeout(finish, timeoutMs)
        function finish() {
          clearTimeout(timer)
          abort?.removeEventListener('abort', finish)
          resolve()
        }
        abort?.addEventListener('abort', finish, { once: true })
        void shared.then(finish)
      })
    },
  }
}

export type Signal = ReturnType<typeof createSignal>
