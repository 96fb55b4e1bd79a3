// The mirror of valibot's issues (src/wire/relayRequestIssues.ts) gives, through
// describeIssues, exactly the MALFORMED_ORDER message valibot's own issues give, and
// finds none exactly when RelayRequestSchema accepts: for 20,000 bodies changed near
// the edges of every field and the fuzz test's 10,000 malformed bodies.
import { expect, test } from 'bun:test'
import * as v from 'valibot'
import { describeIssues, type RelayRequest, RelayRequestSchema } from '../../src/wire/index.ts'
import { relayRequestIssues } from '../../src/wire/relayRequestIssues.ts'
import { createBodyGenerator } from '../fuzz/support/bodies.ts'
import { createRandom } from '../helpers/random.ts'
import { createRelayBodies } from '../helpers/relayBodies.ts'

function expectSameVerdict(body: unknown) {
  const parsed = v.safeParse(RelayRequestSchema, body)
  const mirrored = relayRequestIssues(body)
  if (parsed.success) expect(mirrored).toEqual([])
  else expect(describeIssues(mirrored)).toBe(describeIssues(parsed.issues))
}

test('20,000 changed bodies: the same verdict and the same message as valibot', () => {
  const bodies = createRelayBodies(createRandom(0x155e5))
  let refused = 0
  for (let i = 0; i < 20_000; i++) {
    const body = bodies.mutated()
    expectSameVerdict(body)
    if (relayRequestIssues(body).length > 0) refused++
  }
  expect(refused).toBeGreaterThan(10_000)
})

test("the fuzz test's malformed bodies that parse as JSON: the same message as valibot", () => {
  const base = createRelayBodies(createRandom(7)).valid() as RelayRequest
  const next = createBodyGenerator(base, createRandom(0x0dd5eed))
  const decoder = new TextDecoder('utf-8', { fatal: true })
  let compared = 0
  for (let i = 0; i < 10_000; i++) {
    const { body } = next()
    let parsed: unknown
    try {
      parsed = JSON.parse(typeof body === 'string' ? body : decoder.decode(body))
    } catch {
      continue
    }
    if (Array.isArray(parsed)) continue // refused before validation (validateRequest)
    expectSameVerdict(parsed)
    compared++
  }
  expect(compared).toBeGreaterThan(5_000)
})

test('bodies that are not objects', () => {
  for (const body of [null, undefined, 0, 1, '', 'x', true, false]) expectSameVerdict(body)
})
