import type { Hex } from 'viem'

/**
 * Who is working on an orderHash right now. Only the holder of a claim may look
 * the order up in the journal and broadcast it; a duplicate waits for the release,
 * then reads the journal. Async so a store shared by several relayer processes
 * (Redis) can implement it; `createLocalClaims` serves one process.
 */
export interface OrderClaims {
  /** Takes the claim; false when it is held. */
  claim(orderHash: Hex): Promise<boolean>
  release(orderHash: Hex): Promise<void>
  /** Resolves once the claim is released, or after `timeoutMs`. */
  released(orderHash: Hex, timeoutMs: number): Promise<void>
  /** Claims held by this process (orders being worked on here). */
  readonly held: number
}

/** Claims held in this process's memory. */
export function createLocalClaims(): OrderClaims {
  const held = new Map<Hex, { done: Promise<void>; finish: () => void }>()
  return {
    async claim(orderHash) {
      if (held.has(orderHash)) return false
      let finish!: () => void
      const done = new Promise<void>((resolve) => (finish = resolve))
      held.set(orderHash, { done, finish })
      return true
    },
    async release(orderHash) {
      held.get(orderHash)?.finish()
      held.delete(orderHash)
    },
    async released(orderHash, timeoutMs) {
      const entry = held.get(orderHash)
      if (!entry) return
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([entry.done, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))])
      clearTimeout(timer)
    },
    get held() {
      return held.size
    },
  }
}
