/**
 * Wraps an async read so calls made while one is running share it: a burst of callers
 * on a cold cache (every order arriving at once after a start) makes one RPC call, not
 * one each. A failure reaches every caller that shared it; the next call tries again.
 */
export function sharedInFlight<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined
  return () => {
    running ??= read().finally(() => {
      running = undefined
    })
    return running
  }
}
