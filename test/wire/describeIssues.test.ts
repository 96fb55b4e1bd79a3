// MALFORMED_ORDER names every problem, or says how many more there are beyond the
// first six (never stops at six without a word).
import { expect, test } from 'bun:test'
import * as v from 'valibot'
import { describeIssues, RelayRequestSchema } from '../../src/wire/index.ts'

const issuesOf = (body: unknown) => v.safeParse(RelayRequestSchema, body).issues ?? []

test('six problems or fewer: each named, nothing counted', () => {
  expect(describeIssues(issuesOf({}))).toBe('order is required; signature is required; validAfter is required; validBefore is required; chainId is required')
})

test('fourteen problems: six named, then "and 8 more problems"', () => {
  const body = {
    order: { consumer: 'x', adapter: 'y', params: 'z', payToken: 1, payee: 2, amount: 'a', nonce: 'b', feeBps: -1 },
    signature: { v: 'q', r: 1, s: 2 },
    validAfter: 'x',
    validBefore: 'y',
    chainId: 'z',
  }
  expect(issuesOf(body)).toHaveLength(14)
  expect(describeIssues(issuesOf(body))).toBe(
    'order.consumer must be an address: 0x followed by 40 hex digits; ' +
      'order.adapter must be an address: 0x followed by 40 hex digits; ' +
      'order.params must be hex: 0x followed by an even number of hex digits; ' +
      'order.payToken must be a string; order.payee must be a string; ' +
      'order.amount must be a canonical decimal string (digits only, no sign, no leading zero); ' +
      'and 8 more problems',
  )
})

test('seven problems: "and 1 more problem"; repeated unknown fields count once', () => {
  const body = { order: 1, signature: 2, validAfter: 3, validBefore: 4, chainId: 'x', orderHash: 5, extra1: 1, extra2: 2, extra3: 3 }
  expect(describeIssues(issuesOf(body))).toBe(
    'order must be a JSON object; signature must be a JSON object; validAfter must be a decimal string; validBefore must be a decimal string; ' +
      'chainId must be an integer (chainId); orderHash must be a string; and 1 more problem',
  )
})
