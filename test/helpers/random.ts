/**
 * A small seeded generator (sfc32), so a failing run is reproduced from its seed.
 *
 * @example
 * const rng = createRandom(0x5eed)
 * rng.int(0, 9); rng.pick(['a', 'b']); rng.hex(20)
 */
export function createRandom(seed: number) {
  let a = 0x9e3779b9
  let b = 0x243f6a88
  let c = 0xb7e15162
  let d = seed >>> 0
  const next = (): number => {
    a >>>= 0
    b >>>= 0
    c >>>= 0
    d >>>= 0
    let t = (a + b) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    d = (d + 1) | 0
    t = (t + d) | 0
    c = (c + t) | 0
    return (t >>> 0) / 4294967296
  }
  for (let i = 0; i < 16; i++) next()

  const random = {
    /** A float in [0, 1). */
    next,
    /** An integer in [min, max]. */
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    /** `bytes` random bytes as lower-case hex, without 0x. */
    hex: (bytes: number) => {
      let out = ''
      for (let i = 0; i < bytes; i++) out += Math.floor(next() * 256).toString(16).padStart(2, '0')
      return out
    },
    /** A random uint256 of a random magnitude. */
    uint256: (): bigint => BigInt(`0x${random.hex(random.int(1, 32))}`),
    /** `length` characters of [a-z0-9]. */
    word: (length: number) => {
      let out = ''
      for (let i = 0; i < length; i++) out += '0123456789abcdefghijklmnopqrstuvwxyz'[Math.floor(next() * 36)]
      return out
    },
    digits: (length: number) => {
      let out = String(1 + Math.floor(next() * 9))
      for (let i = 1; i < length; i++) out += String(Math.floor(next() * 10))
      return out
    },
  }
  return random
}

export type Random = ReturnType<typeof createRandom>
