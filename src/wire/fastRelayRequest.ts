import type { RelayRequest } from './relay.ts'
import { maxUint256 } from './primitives.ts'

// A shortcut in front of valibot's `RelayRequestSchema` for the common case, a
// well-formed request: valibot's run costs more than the rest of a refusal. It only
// ever says yes when the schema says yes, with the same output; anything else
// (undefined) goes to valibot, which alone names the problems. The field lists and
// patterns mirror src/wire/relay.ts, order.ts and primitives.ts (test/wire/fastRelayRequest.test.ts
// holds them to the schemas).

export const fastRequestKeys = ['order', 'signature', 'validAfter', 'validBefore', 'chainId', 'orderHash'] as const
export const fastOrderKeys = ['consumer', 'adapter', 'params', 'payToken', 'payee', 'amount', 'nonce', 'feeBps'] as const
export const fastSignatureKeys = ['v', 'r', 's'] as const

const address = /^0x[0-9a-fA-F]{40}$/
const hex = /^0x([0-9a-fA-F]{2})*$/
const bytes32 = /^0x[0-9a-fA-F]{64}$/
const decimal = /^(0|[1-9][0-9]*)$/

type Fields = Record<string, unknown>

/** A plain object whose own and inherited enumerable keys are all in `keys` (a strict object's rule). */
function onlyKeys(value: unknown, keys: readonly string[]): value is Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  for (const key in value) if (!keys.includes(key)) return false
  return true
}

const isAddress = (value: unknown): value is string => typeof value === 'string' && address.test(value)
const isBytes32 = (value: unknown): value is string => typeof value === 'string' && bytes32.test(value)
const isUint256 = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= 78 && decimal.test(value) && (value.length < 78 || BigInt(value) <= maxUint256)
const isIntegerIn = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max

/** The request as valibot's `RelayRequestSchema` would output it, or undefined: ask valibot. */
export function fastRelayRequest(body: unknown): RelayRequest | undefined {
  if (!onlyKeys(body, fastRequestKeys)) return undefined
  const { order, signature, validAfter, validBefore, chainId } = body
  if (!onlyKeys(order, fastOrderKeys) || !onlyKeys(signature, fastSignatureKeys)) return undefined
  const { consumer, adapter, params, payToken, payee, amount, nonce, feeBps } = order
  if (!isAddress(consumer) || !isAddress(adapter) || !isAddress(payToken) || !isAddress(payee)) return undefined
  if (typeof params !== 'string' || !hex.test(params) || !isUint256(amount) || !isUint256(nonce) || !isIntegerIn(feeBps, 0, 65535)) return undefined
  const { v, r, s } = signature
  if (!isIntegerIn(v, 0, 255) || !isBytes32(r) || !isBytes32(s)) return undefined
  if (!isUint256(validAfter) || !isUint256(validBefore) || !isIntegerIn(chainId, 1, Number.MAX_SAFE_INTEGER)) return undefined
  const request: RelayRequest = {
    order: { consumer, adapter, params, payToken, payee, amount, nonce, feeBps },
    signature: { v, r, s },
    validAfter,
    validBefore,
    chainId,
  }
  // valibot copies an optional key when it is there, and only then.
  if ('orderHash' in body) {
    if (!isBytes32(body.orderHash)) return undefined
    request.orderHash = body.orderHash
  }
  return request
}
