import type { EdgeRefusal } from './reject.ts'

export type ConcurrencyCapOptions = {
  /** Requests allowed in flight at once, over all clients. */
  max: number
}

export type ConcurrencyCap = {
  /** Takes a slot, or refuses at once when all are held (nothing ever waits in a queue). */
  enter(): EdgeRefusal | undefined
  /** Gives back a slot taken by `enter`, whether its request succeeded or failed. */
  leave(): void
  /** Slots held now. */
  readonly inflight: number
}

/**
 * Global in-flight cap (SPEC.md 4.5 item 2): while `max` orders are being handled,
 * the next one is refused 429 `SERVER_BUSY` (with `Retry-After: 1`).
 *
 * @example
 * const cap = concurrencyCap({ max: 64 })
 * const busy = cap.enter()
 * if (!busy) try { await settle() } finally { cap.leave() }
 */
export function concurrencyCap(options: ConcurrencyCapOptions): ConcurrencyCap {
  const { max } = options
  const busy: EdgeRefusal = {
    code: 'SERVER_BUSY',
    message: `relayer is at its concurrency cap (${max} orders in flight); retry shortly or use another relayer`,
    headers: { 'Retry-After': '1' },
  }
  let inflight = 0
  return {
    enter() {
      if (inflight >= max) return busy
      inflight++
      return undefined
    },
    leave() {
      inflight--
    },
    get inflight() {
      return inflight
    },
  }
}
