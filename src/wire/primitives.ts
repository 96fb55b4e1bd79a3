import * as v from 'valibot'

/** 2^256 - 1, the largest value a decimal wire string may carry. */
export const maxUint256 = 2n ** 256n - 1n

// The shapes of the wire's primitives, written once: the schemas below, and every other
// check of an address, a bytes32 or a decimal string (configuration, CLI flags, the
// manifest, query parameters, MCP inputs) use these.

/** An address: `0x` + 40 hex digits, any case (checksums are not enforced on the wire). */
export const addressPattern = /^0x[0-9a-fA-F]{40}$/
/** 32 bytes (a hash, a lien id, a private key): `0x` + 64 hex digits. */
export const bytes32Pattern = /^0x[0-9a-fA-F]{64}$/
/** A byte string: `0x` + an even number of hex digits. */
export const hexPattern = /^0x([0-9a-fA-F]{2})*$/
/** A canonical decimal string: `0`, or digits without a leading zero (no sign, no exponent). */
export const decimalPattern = /^(0|[1-9][0-9]*)$/
/** `decimalPattern` of at most `maxDigits` digits (a block number that fits a uint64 has at most 20). */
export const decimalPatternUpTo = (maxDigits: number) => new RegExp(`^(0|[1-9][0-9]{0,${maxDigits - 1}})$`)

/** Whether `value` is an address string (`addressPattern`). */
export const isAddressString = (value: unknown): value is `0x${string}` => typeof value === 'string' && addressPattern.test(value)
/** Whether `value` is a bytes32 string (`bytes32Pattern`). */
export const isBytes32String = (value: unknown): value is `0x${string}` => typeof value === 'string' && bytes32Pattern.test(value)
/** Whether `value` is `0x` followed by an even number of hex digits (`hexPattern`). */
export const isHexString = (value: unknown): value is `0x${string}` => typeof value === 'string' && hexPattern.test(value)
/** Whether `value` is a canonical decimal string (`decimalPattern`). */
export const isDecimalString = (value: unknown): boolean => typeof value === 'string' && decimalPattern.test(value)

/** `0x` + 40 hex digits (any case; checksums are not enforced on the wire). */
export const AddressSchema = v.pipe(
  v.string('must be a string'),
  v.regex(addressPattern, 'must be an address: 0x followed by 40 hex digits'),
  v.description('An address: 0x followed by 40 hex digits.'),
)

/** `0x` + an even number of hex digits. */
export const HexSchema = v.pipe(
  v.string('must be a string'),
  v.regex(hexPattern, 'must be hex: 0x followed by an even number of hex digits'),
  v.description('A byte string: 0x followed by an even number of hex digits.'),
)

/** `0x` + 64 hex digits. */
export const Bytes32Schema = v.pipe(
  v.string('must be a string'),
  v.regex(bytes32Pattern, 'must be 32 bytes of hex: 0x followed by 64 hex digits'),
  v.description('32 bytes: 0x followed by 64 hex digits.'),
)

/**
 * A canonical decimal string that fits uint256: `0`, or digits without a leading
 * zero, at most 2^256 - 1. Kept a string on the wire (JSON numbers lose precision);
 * converted to bigint after validation.
 */
export const Uint256StringSchema = v.pipe(
  v.string('must be a decimal string'),
  v.regex(decimalPattern, 'must be a canonical decimal string (digits only, no sign, no leading zero)'),
  // 2^256 - 1 has 78 digits; stated as maxLength so the OpenAPI schema says it too.
  v.maxLength(78, 'must fit in uint256'),
  // valibot runs this check even after the regex failed: only digits reach BigInt ('1.5' would throw);
  // longer strings are maxLength's to report, so one problem is named once.
  v.check((s) => !/^[0-9]+$/.test(s) || s.length > 78 || BigInt(s) <= maxUint256, 'must fit in uint256'),
  v.description('A uint256 as a canonical decimal string.'),
)

/** A block number as a canonical decimal string. */
export const BlockNumberStringSchema = v.pipe(
  v.string(),
  v.regex(decimalPattern),
  v.description('A block number as a decimal string.'),
)

/** A JSON integer in [min, max]. */
export const integerIn = (min: number, max: number, what: string) =>
  v.pipe(
    v.number(`must be an integer (${what})`),
    v.integer(`must be an integer (${what})`),
    v.minValue(min, `must be at least ${min} (${what})`),
    v.maxValue(max, `must be at most ${max} (${what})`),
  )
