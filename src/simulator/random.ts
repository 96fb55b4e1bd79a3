/**
 * A seeded pseudo-random source (SplitMix32 over a 32-bit state): the same seed gives
 * the same numbers on every machine and every run, which is all a simulation needs of
 * it. Never for keys or anything secret.
 *
 * @example
 * const random = createRandom(42)
 * random.int(10) // 0…9, the same for seed 42 every time
 */
export function createRandom(seed: number) {
  let state = seed >>> 0
  function next(): number {
    state = (state + 0x9e3779b9) >>> 0
    let z = state
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
    return ((z ^ (z >>> 16)) >>> 0) / 0x1_0000_0000
  }
  return {
    /** A number in [0, 1). */
    next,
    /** An integer in [0, n). */
    int: (n: number) => Math.floor(next() * n),
    /** An integer in [from, to]. */
    between: (from: number, to: number) => from + Math.floor(next() * (to - from + 1)),
    /** True with probability p. */
    chance: (p: number) => next() < p,
    /** One of the items. */
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  }
}

export type Random = ReturnType<typeof createRandom>
