import { maxUint256 } from './primitives.ts'

// valibot's issues for a body that is not a RelayRequest, found without valibot: its
// run on a failing body (issue objects, received-value strings, message lookups)
// cost more than everything else in a MALFORMED_ORDER answer. This mirrors
// RelayRequestSchema (src/wire/relay.ts, order.ts, primitives.ts) rule for rule, in
// valibot's order: each entry of a strict object in schema order, nested issues in
// place, then the first unexpected key; every check of a string or number pipe after
// its type check passed. Only what `describeIssues` reads is filled in.
// test/wire/relayRequestIssues.test.ts holds the messages to valibot's.

/** The fields of a valibot issue that `describeIssues` reads. */
export type MirroredIssue = { type: string; input: unknown; message: string; expected: string | null; path: { key: string }[] | undefined }

/** Where a value sits: its key and its parent's place (undefined at the top); built into a path only for an issue. */
type Place = { key: string; parent: Place | undefined } | undefined

type Rule = (input: unknown, place: Place, issues: MirroredIssue[]) => void

function issue(issues: MirroredIssue[], place: Place, type: string, input: unknown, message: string) {
  const path: { key: string }[] = []
  for (let at = place; at; at = at.parent) path.unshift({ key: at.key })
  issues.push({ type, input, message, expected: null, path: path.length > 0 ? path : undefined })
}

function strictObject(entries: Record<string, Rule>, optional: readonly string[] = []): Rule {
  const rules = Object.entries(entries).map(([key, rule]) => ({ key, rule, optional: optional.includes(key) }))
  return (input, place, issues) => {
    // valibot's test: anything truthy of type object (arrays included; validateRequest refuses a top-level array first).
    if (!(input && typeof input === 'object')) return issue(issues, place, 'strict_object', input, 'not an object')
    const fields = input as Record<string, unknown>
    for (const { key, rule, optional } of rules) {
      if (key in fields) rule(fields[key], { key, parent: place }, issues)
      else if (!optional) issue(issues, { key, parent: place }, 'strict_object', undefined, 'missing key')
    }
    for (const key in fields) {
      if (!Object.hasOwn(entries, key)) {
        issue(issues, { key, parent: place }, 'strict_object', key, 'unexpected key')
        break
      }
    }
  }
}

/** `v.optional`: undefined passes, anything else meets `rule`. */
const optional =
  (rule: Rule): Rule =>
  (input, place, issues) => {
    if (input !== undefined) rule(input, place, issues)
  }

/** `v.pipe(v.string(typeMessage), ...checks)`: every check runs once the type is right. */
function stringPipe(typeMessage: string, checks: [type: string, ok: (value: string) => boolean, message: string][]): Rule {
  return (input, place, issues) => {
    if (typeof input !== 'string') return issue(issues, place, 'string', input, typeMessage)
    for (const [type, ok, message] of checks) if (!ok(input)) issue(issues, place, type, input, message)
  }
}

const matches = (pattern: RegExp) => (value: string) => pattern.test(value)

const address = stringPipe('must be a string', [['regex', matches(/^0x[0-9a-fA-F]{40}$/), 'must be an address: 0x followed by 40 hex digits']])
const hex = stringPipe('must be a string', [['regex', matches(/^0x([0-9a-fA-F]{2})*$/), 'must be hex: 0x followed by an even number of hex digits']])
const bytes32 = stringPipe('must be a string', [['regex', matches(/^0x[0-9a-fA-F]{64}$/), 'must be 32 bytes of hex: 0x followed by 64 hex digits']])
const uint256 = stringPipe('must be a decimal string', [
  ['regex', matches(/^(0|[1-9][0-9]*)$/), 'must be a canonical decimal string (digits only, no sign, no leading zero)'],
  ['max_length', (value) => value.length <= 78, 'must fit in uint256'],
  // Under 78 digits always fits: BigInt only for the longest.
  ['check', (value) => value.length < 78 || value.length > 78 || !/^[0-9]+$/.test(value) || BigInt(value) <= maxUint256, 'must fit in uint256'],
])

/** `integerIn(min, max, what)`: a number (not NaN), then integer, at least, at most, each checked. */
function integerIn(min: number, max: number, what: string): Rule {
  return (input, place, issues) => {
    if (typeof input !== 'number' || Number.isNaN(input)) return issue(issues, place, 'number', input, `must be an integer (${what})`)
    if (!Number.isInteger(input)) issue(issues, place, 'integer', input, `must be an integer (${what})`)
    if (!(input >= min)) issue(issues, place, 'min_value', input, `must be at least ${min} (${what})`)
    if (!(input <= max)) issue(issues, place, 'max_value', input, `must be at most ${max} (${what})`)
  }
}

const relayRequest = strictObject(
  {
    order: strictObject({
      consumer: address,
      adapter: address,
      params: hex,
      payToken: address,
      payee: address,
      amount: uint256,
      nonce: uint256,
      feeBps: integerIn(0, 65535, 'feeBps is a uint16'),
    }),
    signature: strictObject({ v: integerIn(0, 255, 'v is a uint8'), r: bytes32, s: bytes32 }),
    validAfter: uint256,
    validBefore: uint256,
    chainId: integerIn(1, Number.MAX_SAFE_INTEGER, 'chainId'),
    orderHash: optional(bytes32),
  },
  ['orderHash'],
)

/** The issues valibot's `RelayRequestSchema` finds in `body`, in its order (none: it is a RelayRequest). */
export function relayRequestIssues(body: unknown): MirroredIssue[] {
  const issues: MirroredIssue[] = []
  relayRequest(body, undefined, issues)
  return issues
}
