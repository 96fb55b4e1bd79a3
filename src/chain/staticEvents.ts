import { type AbiEvent, type Hex, toEventSelector } from 'viem'
import { checksumAddress } from '../wire/index.ts'

/** Decodes one 32-byte word (64 lower-case hex digits) into its field text, or undefined when it is not canonical. */
type WordDecoder = (word: string) => string | undefined

export type StaticEventDecoder = {
  name: string
  /** The event's fields as `formatEventArgs` would give them, or undefined: let viem decode it. */
  decode(topics: readonly Hex[], data: Hex): Record<string, string> | undefined
}

/**
 * A decoder for an event whose arguments are all static elementary types (address,
 * bool, uintN, intN, bytesN), which is every event of the registry contracts. It
 * slices the topics and data words directly instead of going through viem's generic
 * `decodeEventLog` (≈ 12 µs a log here, most of a backfill's time), and gives the
 * same fields in the same order: indexed arguments first, then the data ones,
 * integers as decimal strings, addresses checksummed, bytes as lower-case hex.
 * Anything unusual (wrong topic count or data length, a value that does not fit its
 * type) returns undefined so the caller falls back to viem. Returns undefined for
 * events it cannot take (anonymous, unnamed or dynamic arguments).
 */
export function compileStaticEvent(item: AbiEvent): { selector: Hex; decoder: StaticEventDecoder } | undefined {
  if (item.anonymous) return undefined
  const indexed: Field[] = []
  const inData: Field[] = []
  for (const input of item.inputs) {
    const decode = wordDecoder(input.type)
    if (!input.name || !decode) return undefined
    ;(input.indexed ? indexed : inData).push({ name: input.name, decode })
  }
  const dataLength = 2 + 64 * inData.length
  const decoder: StaticEventDecoder = {
    name: item.name,
    decode(topics, data) {
      if (topics.length !== 1 + indexed.length || data.length !== dataLength) return undefined
      const fields: Record<string, string> = {}
      for (let i = 0; i < indexed.length; i++) {
        const field = indexed[i]!
        const value = field.decode(lowerCase((topics[i + 1] as string).slice(2)))
        if (value === undefined) return undefined
        fields[field.name] = value
      }
      for (let i = 0; i < inData.length; i++) {
        const field = inData[i]!
        const value = field.decode(lowerCase(data.slice(2 + 64 * i, 66 + 64 * i)))
        if (value === undefined) return undefined
        fields[field.name] = value
      }
      return fields
    },
  }
  return { selector: toEventSelector(item), decoder }
}

type Field = { name: string; decode: WordDecoder }

const hexWord = /^[0-9a-f]{64}$/
const upperHex = /[A-F]/

/** Nodes send lower-case hex: a copy only for one that does not. */
const lowerCase = (word: string) => (upperHex.test(word) ? word.toLowerCase() : word)
/** A word starting with 51 zero digits has 13 more (52 bits): a Number holds it exactly. */
const smallWord = '0'.repeat(51)

function wordDecoder(type: string): WordDecoder | undefined {
  if (type === 'address') return (word) => (hexWord.test(word) ? checksummed(word.slice(24)) : undefined)
  if (type === 'bool') return (word) => (word === '0'.repeat(64) ? 'false' : word === `${'0'.repeat(63)}1` ? 'true' : undefined)
  const uint = /^uint(\d+)$/.exec(type)
  if (uint) {
    const max = (1n << BigInt(uint[1]!)) - 1n
    // Most amounts and ids of a registry are small: parsed as a Number, without a BigInt.
    const smallMax = max < 2n ** 52n ? Number(max) : Number.MAX_SAFE_INTEGER
    return (word) => {
      if (!hexWord.test(word)) return undefined
      if (word.startsWith(smallWord)) {
        const small = Number.parseInt(word.slice(51), 16)
        return small <= smallMax ? String(small) : undefined
      }
      const value = BigInt(`0x${word}`)
      return value <= max ? value.toString() : undefined
    }
  }
  const int = /^int(\d+)$/.exec(type)
  if (int) {
    const bound = 1n << (BigInt(int[1]!) - 1n)
    return (word) => {
      if (!hexWord.test(word)) return undefined
      const value = BigInt.asIntN(256, BigInt(`0x${word}`))
      return value >= -bound && value < bound ? value.toString() : undefined
    }
  }
  const bytes = /^bytes(\d+)$/.exec(type)
  if (bytes && Number(bytes[1]) >= 1 && Number(bytes[1]) <= 32) {
    const size = Number(bytes[1])
    return (word) => (hexWord.test(word) ? `0x${word.slice(0, 2 * size)}` : undefined)
  }
  return undefined
}

/**
 * Checksummed addresses by their 40 lower-case hex digits: parties repeat in a
 * registry, and viem's getAddress costs ≈ 0.3 µs even when its own cache has the
 * address (a new one is checksummed with the WebAssembly Keccak, see checksumAddress).
 * Bounded: emptied when full.
 */
const checksums = new Map<string, string>()
const maxChecksums = 4_096

function checksummed(hex: string): string {
  let address = checksums.get(hex)
  if (address === undefined) {
    if (checksums.size >= maxChecksums) checksums.clear()
    address = checksumAddress(`0x${hex}`)
    checksums.set(hex, address)
  }
  return address
}
