// Random well-formed orders for encoder tests: addresses and params in any case,
// params of every length around the word boundaries, extreme integers.
import type { Order } from '../../src/wire/index.ts'
import type { Random } from './random.ts'

export const maxUint256 = 2n ** 256n - 1n

/** The hex digits with each letter upper- or lower-case at random. */
export const anyCase = (rng: Random, hex: string) => hex.replace(/[a-f]/g, (c) => (rng.chance(0.5) ? c.toUpperCase() : c))

/** 0, 1, the two largest uint256 values or a random one, as a decimal string. */
export const randomUint256 = (rng: Random) => rng.pick([0n, 1n, maxUint256, maxUint256 - 1n, rng.uint256()]).toString()

export function randomOrder(rng: Random): Order {
  return {
    consumer: `0x${anyCase(rng, rng.hex(20))}`,
    adapter: `0x${rng.hex(20)}`,
    params: `0x${anyCase(rng, rng.hex(rng.pick([0, 1, 31, 32, 33, 64, 65, rng.int(0, 300)])))}`,
    payToken: `0x${rng.hex(20).toUpperCase()}`,
    payee: `0x${rng.hex(20)}`,
    amount: randomUint256(rng),
    nonce: randomUint256(rng),
    feeBps: rng.pick([0, 1, 10_000, 65_535, rng.int(0, 65_535)]),
  }
}
