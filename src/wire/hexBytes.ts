// Hex ↔ bytes without intermediate strings: the orderHash of every request is
// encoded straight into bytes (src/wire/hashOrder.ts) and its digest written back
// as hex, and `Buffer` is not there in a browser.

/** Value of each ASCII hex digit (either case); -1 for any other character code. */
const digitValues = new Int8Array(128).fill(-1)
for (let i = 0; i < 10; i++) digitValues[48 + i] = i
for (let i = 0; i < 6; i++) {
  digitValues[65 + i] = 10 + i
  digitValues[97 + i] = 10 + i
}

/** The two lower-case digits of each byte value. */
const byteHex = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'))

/**
 * Writes the hex digits `text[from..]` (an even count, no prefix) into `into` at
 * `at`, right-aligned in `width` bytes (the bytes before them are left as they are).
 * Returns false, having written part of them maybe, when a character is not a hex
 * digit or the digits do not fit.
 */
export function writeHex(into: Uint8Array, at: number, width: number, text: string, from: number): boolean {
  const digits = text.length - from
  if (digits % 2 !== 0 || digits / 2 > width) return false
  let out = at + width - digits / 2
  for (let i = from; i < text.length; i += 2) {
    const high = digitValues[text.charCodeAt(i)] ?? -1
    const low = digitValues[text.charCodeAt(i + 1)] ?? -1
    if (high < 0 || low < 0) return false
    into[out++] = (high << 4) | low
  }
  return true
}

/** `0x` followed by an even number of hex digits, as bytes; undefined for anything else. */
export function hexToBytes(hex: string): Uint8Array | undefined {
  if (hex.length % 2 !== 0 || !hex.startsWith('0x')) return undefined
  const bytes = new Uint8Array((hex.length - 2) / 2)
  return writeHex(bytes, 0, bytes.length, hex, 2) ? bytes : undefined
}

type WithToHex = Uint8Array & { toHex(): string }
/** The engine's own `Uint8Array.prototype.toHex` (Bun, recent browsers; lower-case digits), ~10× the loop below on a 1 KB transaction. */
const nativeToHex = typeof (Uint8Array.prototype as Partial<WithToHex>).toHex === 'function'

/** `0x` + two lower-case digits a byte. */
export function bytesToHex(bytes: Uint8Array): `0x${string}` {
  if (nativeToHex) return `0x${(bytes as WithToHex).toHex()}`
  let hex = '0x'
  for (let i = 0; i < bytes.length; i++) hex += byteHex[bytes[i]!]
  return hex as `0x${string}`
}
