// The shortcut in front of valibot for well-formed requests says yes only when
// RelayRequestSchema does, with the same output, for 20,000 bodies near the edges of
// every field; and it knows the schema's fields (a field added to the schema and not
// to the shortcut fails here).
import { expect, test } from 'bun:test'
import * as v from 'valibot'
import { fastOrderKeys, fastRelayRequest, fastRequestKeys, fastSignatureKeys } from '../../src/wire/fastRelayRequest.ts'
import { OrderSchema, RelayRequestSchema, SignatureSchema } from '../../src/wire/index.ts'
import { createRandom } from '../helpers/random.ts'
import { createRelayBodies } from '../helpers/relayBodies.ts'

test('the shortcut knows exactly the schema fields', () => {
  expect(Object.keys(RelayRequestSchema.entries)).toEqual([...fastRequestKeys])
  expect(Object.keys(OrderSchema.entries)).toEqual([...fastOrderKeys])
  expect(Object.keys(SignatureSchema.entries)).toEqual([...fastSignatureKeys])
})

const rng = createRandom(0xfa57)
const bodies = createRelayBodies(rng)

test('20,000 bodies: never a yes the schema does not give, and the same output', () => {
  let shortcut = 0
  for (let i = 0; i < 20_000; i++) {
    const body = bodies.mutated()
    const fast = fastRelayRequest(body)
    const parsed = v.safeParse(RelayRequestSchema, body)
    if (fast) {
      shortcut++
      expect(parsed.success).toBe(true)
      expect(fast as unknown).toStrictEqual(parsed.output)
      expect(JSON.stringify(fast)).toBe(JSON.stringify(parsed.output))
    } else {
      // Every body JSON can carry that the schema accepts takes the shortcut.
      expect(parsed.success).toBe(false)
    }
  }
  expect(shortcut).toBeGreaterThan(3_000)
})

test('not an object: no shortcut', () => {
  for (const body of [null, undefined, 1, 'x', [], [bodies.valid()]]) expect(fastRelayRequest(body)).toBeUndefined()
})
