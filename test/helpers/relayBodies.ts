// Relay request bodies near the edges of every field, for the tests that hold the
// relayer's shortcuts in front of valibot (src/wire/fastRelayRequest.ts,
// src/wire/relayRequestIssues.ts) to RelayRequestSchema.
import { fastOrderKeys, fastRequestKeys, fastSignatureKeys } from '../../src/wire/fastRelayRequest.ts'
import { maxUint256 } from '../../src/wire/index.ts'
import type { Random } from './random.ts'

/** A generator of valid bodies (`valid`) and of bodies with 0-3 random changes (`mutated`). */
export function createRelayBodies(rng: Random) {
  const hex = (bytes: number) => `0x${rng.hex(bytes)}`
  const anyCase = (text: string) => text.replace(/[a-f]/g, (c) => (rng.chance(0.5) ? c.toUpperCase() : c))
  const strings = ['', '0x', '0X', '0', '00', '01', '1', '-1', '1.5', '1e3', ' 1', '1 ', '0x0', 'zz', '٣', maxUint256.toString(), (maxUint256 + 1n).toString(), `1${'0'.repeat(77)}`, `1${'0'.repeat(78)}`, '9'.repeat(79), 'x'.repeat(90), `0${'1'.repeat(79)}`, 'order']
  const numbers = [0, -0, 1, -1, 1.5, -1.5, 255, 256, 65535, 65536, 2 ** 53 - 1, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e300]
  const others = [null, true, false, [], {}, [1], [[]], { a: 1 }, { amount: '1' }]
  const candidates = () => [
    ...strings,
    ...numbers,
    ...others,
    hex(20),
    anyCase(hex(20)),
    hex(19),
    `${hex(20)}0`,
    hex(32),
    anyCase(hex(32)),
    hex(31),
    hex(rng.int(0, 70)),
    `0x${rng.hex(3)}g`,
    rng.uint256().toString(),
    String(rng.int(0, 100_000)),
  ]

  function validBody(): Record<string, unknown> {
    const body: Record<string, unknown> = {
      order: {
        consumer: anyCase(hex(20)),
        adapter: hex(20),
        params: hex(rng.pick([0, 1, 32, 100])),
        payToken: hex(20),
        payee: hex(20),
        amount: rng.uint256().toString(),
        nonce: rng.pick(['0', maxUint256.toString(), rng.uint256().toString()]),
        feeBps: rng.int(0, 65535),
      },
      signature: { v: rng.pick([0, 27, 28, 255]), r: hex(32), s: hex(32) },
      validAfter: '0',
      validBefore: String(rng.int(1, 2 ** 40)),
      chainId: rng.pick([1, 31337, 421614, 2 ** 53 - 1]),
    }
    if (rng.chance(0.5)) body.orderHash = hex(32)
    return body
  }

  function mutate(body: Record<string, unknown>): void {
    const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
    const targets: [Record<string, unknown>, readonly string[]][] = [[body, fastRequestKeys]]
    if (isObject(body.order)) targets.push([body.order, fastOrderKeys], [body.order, fastOrderKeys])
    if (isObject(body.signature)) targets.push([body.signature, fastSignatureKeys])
    const [target, keys] = rng.pick(targets)
    const action = rng.int(0, 9)
    if (action === 0) delete target[rng.pick(keys)]
    // An own "__proto__" key, as JSON.parse makes one.
    else if (action === 1) Object.defineProperty(target, rng.pick(['extra', '__proto__', 'constructor', 'toString', 'ORDER', 'v ', 'amount', 'r', 'order', 'chainId']), { value: 1, enumerable: true, configurable: true, writable: true })
    else target[rng.pick(keys)] = rng.pick(candidates())
  }
  return {
    valid: validBody,
    mutated() {
      const body = validBody()
      for (let m = rng.int(0, 3); m > 0; m--) mutate(body)
      return body
    },
  }
}
