import type { RelayRequest } from '../../../src/wire/index.ts'
import type { Random } from '../../helpers/random.ts'

/** One generated `POST /broker` request that must be answered 400 MALFORMED_ORDER. */
export type FuzzCase = {
  /** What was done to the body (for the failure message). */
  label: string
  body: string | Uint8Array<ArrayBuffer>
  /** undefined: no Content-Type header at all. */
  contentType: string | undefined
  /** Distinctive strings planted in the body; none may come back in the answer. */
  tokens: string[]
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
type Kind = 'address' | 'hex' | 'bytes32' | 'uint' | 'uint16' | 'uint8' | 'chainId' | 'object'

const fields: { path: string[]; kind: Kind; optional?: boolean }[] = [
  { path: ['order'], kind: 'object' },
  { path: ['order', 'consumer'], kind: 'address' },
  { path: ['order', 'adapter'], kind: 'address' },
  { path: ['order', 'params'], kind: 'hex' },
  { path: ['order', 'payToken'], kind: 'address' },
  { path: ['order', 'payee'], kind: 'address' },
  { path: ['order', 'amount'], kind: 'uint' },
  { path: ['order', 'nonce'], kind: 'uint' },
  { path: ['order', 'feeBps'], kind: 'uint16' },
  { path: ['signature'], kind: 'object' },
  { path: ['signature', 'v'], kind: 'uint8' },
  { path: ['signature', 'r'], kind: 'bytes32' },
  { path: ['signature', 's'], kind: 'bytes32' },
  { path: ['validAfter'], kind: 'uint' },
  { path: ['validBefore'], kind: 'uint' },
  { path: ['chainId'], kind: 'chainId' },
  { path: ['orderHash'], kind: 'bytes32', optional: true },
]

const maxUint256 = 2n ** 256n - 1n

const wrongContentTypes = [
  undefined,
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=zz',
  'application/xml',
  'application/jsonp',
  'application/json5',
  'application/javascript',
  'json',
  '',
  'text/json; charset=utf-8',
]

/**
 * A seeded generator of bodies that are malformed in one of many ways: invalid JSON,
 * wrong types, missing and extra fields, numbers past uint256, negative and
 * fractional numbers, huge bodies, deep nesting, wrong content types, non-UTF-8.
 * Each plants distinctive tokens (letters that are not hex, or long digit runs) so an
 * answer that echoes any part of the input is caught.
 *
 * @example
 * const next = createBodyGenerator(validRequest, createRandom(seed))
 * const { body, contentType, tokens } = next()
 */
export function createBodyGenerator(base: RelayRequest, rng: Random) {
  const baseJson = JSON.parse(JSON.stringify(base)) as { [key: string]: Json }
  const clone = () => JSON.parse(JSON.stringify(baseJson)) as { [key: string]: Json }
  let tokens: string[] = []
  /** A token of letters (never valid hex, never a field name). */
  const word = () => remember(`zq${rng.word(10)}`)
  /** A run of digits (planted in numbers); from 7 digits on it is a token (shorter runs occur in any answer: 65536, 421614). */
  const digits = (length = 16) => {
    const run = rng.digits(length)
    return length >= 7 ? remember(run) : run
  }
  const remember = (token: string) => (tokens.push(token), token)

  const set = (body: { [key: string]: Json }, path: string[], value: Json | undefined) => {
    let target = body as { [key: string]: Json }
    for (const key of path.slice(0, -1)) target = target[key] as { [key: string]: Json }
    if (value === undefined) delete target[path[path.length - 1]!]
    else target[path[path.length - 1]!] = value
  }

  /** A value of the wrong JSON type for `kind`. */
  function wrongType(kind: Kind): Json {
    const stringy = kind === 'address' || kind === 'hex' || kind === 'bytes32' || kind === 'uint'
    const options: (() => Json)[] = [
      () => null,
      () => rng.chance(0.5),
      () => [word()],
      () => ({ [word()]: word() }),
      () => [],
      () => ({}),
    ]
    if (stringy || kind === 'object') options.push(() => Number(digits(15)), () => -Number(digits(6)) / 7)
    if (!stringy) options.push(() => word(), () => digits(3), () => `0x${digits(4)}`)
    return rng.pick(options)()
  }

  /** A value of the right JSON type for `kind` but not a valid one. */
  function wrongValue(kind: Kind): Json {
    switch (kind) {
      case 'address':
        return rng.pick([() => `0x${word()}`, () => `0x${digits(41)}`, () => `0x${digits(39)}`, () => digits(40), () => `0X${digits(40)}`, () => ` 0x${digits(40)}`, () => word(), () => ''])()
      case 'hex':
        return rng.pick([() => `0x${word()}`, () => `0x${digits(15)}`, () => digits(16), () => `0x${rng.hex(4)}${word()}`, () => `0x 0${digits(15)}`, () => ''])()
      case 'bytes32':
        return rng.pick([() => `0x${digits(63)}`, () => `0x${digits(65)}`, () => `0x${word()}${rng.hex(26)}`, () => digits(64), () => ''])()
      case 'uint':
        return rng.pick([
          () => `-${digits()}`,
          () => `${digits()}.5`,
          () => `${digits(8)}.${digits(8)}`,
          () => `1e${digits(3)}`,
          () => `0${digits()}`,
          () => `0x${digits()}`,
          () => `+${digits()}`,
          () => ` ${digits()}`,
          () => `${digits()} `,
          () => (maxUint256 + BigInt(digits())).toString(),
          () => `${maxUint256}${digits(4)}`,
          () => digits(79 + rng.int(0, 400)),
          () => word(),
          () => '',
          () => '-0',
        ])()
      case 'uint16':
        return rng.pick([() => 65_536 + Number(digits(6)), () => -Number(digits(4)), () => Number(digits(4)) + 0.5, () => Number(`${digits(3)}.${digits(3)}7`), () => Number(digits(15)) * 1e300])()
      case 'uint8':
        return rng.pick([() => 256 + Number(digits(5)), () => -Number(digits(3)), () => 27.5, () => Number(digits(2)) + 0.25])()
      case 'chainId':
        return rng.pick([() => 0, () => -Number(digits(6)), () => Number(digits(6)) + 0.5, () => 2 ** 53 + 2 * Number(digits(4)), () => Number(digits(9)), () => 1e21])()
      case 'object':
        return rng.pick([() => [clone().order ?? null], () => word(), () => Number(digits(5))])()
    }
  }

  /** A JSON body text with one field broken by `breaker`. */
  const breakField = (breaker: (kind: Kind) => Json, label: string): FuzzCase => {
    const body = clone()
    const field = rng.pick(fields)
    set(body, field.path, breaker(field.kind))
    return json(`${label} at ${field.path.join('.')}`, body)
  }
  const json = (label: string, body: Json): FuzzCase => ({ label, body: JSON.stringify(body), contentType: 'application/json', tokens })
  const withExtra = () => {
    const body = clone()
    body[word()] = word()
    return body
  }

  const generators: [string, () => FuzzCase][] = [
    ['wrong type', () => breakField(wrongType, 'wrong type')],
    ['bad value', () => breakField(wrongValue, 'bad value')],
    [
      'number past uint256',
      () => {
        const body = clone()
        const path = rng.pick([['order', 'amount'], ['order', 'nonce'], ['validAfter'], ['validBefore']])
        set(body, path, rng.chance(0.5) ? (maxUint256 + 1n + BigInt(digits())).toString() : `${maxUint256}${digits(6)}`)
        return json(`past uint256 at ${path.join('.')}`, body)
      },
    ],
    [
      'negative or fractional',
      () => {
        const body = clone()
        const path = rng.pick([['order', 'amount'], ['order', 'nonce'], ['validAfter'], ['validBefore'], ['order', 'feeBps'], ['signature', 'v'], ['chainId']])
        const numeric = path[path.length - 1] === 'feeBps' || path[0] === 'signature' || path[0] === 'chainId'
        const value: Json = numeric
          ? rng.pick([() => -Number(digits(5)), () => Number(digits(2)) + 0.5, () => -0.5, () => Number(`0.${digits(12)}`)])()
          : rng.pick([() => `-${digits()}`, () => `${digits(3)}.${digits(12)}`, () => `.${digits()}`, () => `${digits()}.`])()
        set(body, path, value)
        return json(`negative/fractional at ${path.join('.')}`, body)
      },
    ],
    [
      'missing fields',
      () => {
        const body = clone()
        const required = fields.filter((field) => !field.optional)
        const removed: string[] = []
        for (let i = rng.int(1, 3); i > 0; i--) {
          const field = rng.pick(required)
          try {
            set(body, field.path, undefined)
            removed.push(field.path.join('.'))
          } catch {}
        }
        // The token rides in a bad value beside the hole.
        set(body, ['orderHash'], `0x${word()}`)
        return json(`missing ${removed.join(', ')}`, body)
      },
    ],
    [
      'extra field',
      () => {
        const body = clone()
        const where = rng.pick([[], ['order'], ['signature']])
        let target = body as { [key: string]: Json }
        for (const key of where) target = target[key] as { [key: string]: Json }
        const key = rng.chance(0.2) ? rng.pick(['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty']) : word()
        // Assigning `__proto__` would set the prototype instead of adding a key: plant a placeholder, rename it in the text.
        const placeholder = `placeholder${rng.word(12)}`
        target[placeholder] = rng.pick([() => word(), () => Number(digits()), () => null, () => ({ [word()]: [word()] })])()
        const text = JSON.stringify(body).replace(`"${placeholder}"`, JSON.stringify(key))
        return { label: `extra field ${where.concat(key).join('.')}`, body: text, contentType: 'application/json', tokens }
      },
    ],
    [
      'invalid JSON',
      () => {
        const text = JSON.stringify(withExtra())
        const variants: [string, () => string][] = [
          ['truncated', () => text.slice(0, rng.int(0, text.length - 1))],
          ['trailing text', () => `${text} ${word()}`],
          ['trailing comma', () => `${text.slice(0, -1)},}`],
          ['single quotes', () => text.replaceAll('"', "'")],
          ['unquoted keys', () => text.replace(/"([a-zA-Z]+)":/g, '$1:')],
          ['comment', () => `/* ${word()} */${text}`],
          ['NaN', () => text.replace(/"feeBps":\d+/, `"feeBps":NaN,"${word()}":1`)],
          ['undefined', () => `{"order": undefined, "${word()}": 1}`],
          ['hex number', () => text.replace(/"feeBps":\d+/, `"feeBps":0x${digits(4)}`)],
          ['garbage', () => `${rng.word(rng.int(0, 40))}${word()}}{"`],
          ['two documents', () => `${text}${text}`],
          ['control character', () => text.replace(`"${tokens[0]}"`, `"${tokens[0]}\u0001"`)],
          ['lone brace', () => `{${word()}`],
        ]
        const [name, make] = rng.pick(variants)
        return { label: `invalid JSON (${name})`, body: make(), contentType: 'application/json', tokens }
      },
    ],
    [
      'not an object',
      () => {
        const value = rng.pick([() => [clone()], () => word(), () => Number(digits()), () => null, () => true, () => [word(), Number(digits())]])()
        return json('top level is not an object', value)
      },
    ],
    [
      'huge body',
      () => {
        const body = clone()
        const kind = rng.int(0, 3)
        if (kind === 0) body[word()] = word().repeat(rng.int(6_000, 80_000))
        else if (kind === 1) set(body, ['order', 'params'], `0x${'ab'.repeat(rng.int(20_000, 40_000))}${digits(15)}`)
        else if (kind === 2) set(body, ['order'], Array(rng.int(5_000, 30_000)).fill(Number(digits(12))))
        else body.padding = ' '.repeat(70_000) + word()
        return json(`huge body (kind ${kind})`, body)
      },
    ],
    [
      'deep nesting',
      () => {
        const depth = rng.pick([64, 1_000, 10_000, 30_000, 200_000])
        const token = word()
        const arrays = rng.chance(0.5)
        const nested = arrays ? `${'['.repeat(depth)}"${token}"${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}"${token}"${'}'.repeat(depth)}`
        const text = JSON.stringify(baseJson)
        const at = rng.pick(['whole body', 'order', 'extra key', 'signature.v'])
        const body =
          at === 'whole body'
            ? nested
            : at === 'order'
              ? text.replace(/"order":\{[^}]*\}/, `"order":${nested}`)
              : at === 'extra key'
                ? `${text.slice(0, -1)},"${word()}":${nested}}`
                : text.replace(/"v":\d+/, `"v":${nested}`)
        return { label: `deep nesting (${depth} ${arrays ? 'arrays' : 'objects'}, ${at})`, body, contentType: 'application/json', tokens }
      },
    ],
    [
      'wrong content type',
      () => {
        const contentType = rng.pick(wrongContentTypes)
        const body = rng.chance(0.5) ? JSON.stringify(baseJson) : JSON.stringify(withExtra())
        return { label: `content type ${JSON.stringify(contentType)}`, body: new TextEncoder().encode(body), contentType, tokens }
      },
    ],
    [
      'not UTF-8',
      () => {
        const bytes = new TextEncoder().encode(JSON.stringify(withExtra()))
        const bad = rng.pick([[0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82], [0x80], [0xf4, 0x90, 0x80, 0x80]])
        const at = rng.chance(0.3) ? bytes.length : rng.int(0, bytes.length)
        const out = new Uint8Array(bytes.length + bad.length)
        out.set(bytes.subarray(0, at), 0)
        out.set(bad, at)
        out.set(bytes.subarray(at), at + bad.length)
        return { label: `non-UTF-8 bytes ${bad.map((b) => b.toString(16)).join(' ')} at ${at}`, body: out, contentType: 'application/json', tokens }
      },
    ],
    [
      'chain not served',
      () => {
        const body = clone()
        body.chainId = Number(digits(9))
        return json('a chain this relayer does not serve', body)
      },
    ],
  ]

  return function next(): FuzzCase {
    tokens = []
    const [name, make] = rng.pick(generators)
    const made = make()
    return { ...made, label: `${name}: ${made.label}`, tokens: [...tokens] }
  }
}
