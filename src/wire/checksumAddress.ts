import { type Address, getAddress } from 'viem'
import { keccakTextHex } from './keccak.ts'
import { addressPattern } from './primitives.ts'

/**
 * The EIP-55 checksummed form of an address given in any case: what viem's
 * `getAddress` gives (and throws for, on anything that is not 20 bytes of hex), with
 * the WebAssembly Keccak. viem's JavaScript one makes a fresh address cost ~23 µs under
 * Bun; a relayer checksums a new consumer's address a few times per order (the order's
 * struct, the Brokered event in its receipt).
 *
 * @example
 * checksumAddress('0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359') // '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359'
 */
export function checksumAddress(address: string): Address {
  if (!addressPattern.test(address)) return getAddress(address)
  const lower = address.slice(2).toLowerCase()
  const hash = keccakTextHex(lower)
  if (hash === undefined) return getAddress(address)
  let out = '0x'
  for (let i = 0; i < 40; i++) {
    const char = lower[i]!
    // A letter is upper-cased where the hash's digit at its position is 8 or more.
    out += char > '9' && hash.charCodeAt(i) > 0x37 ? char.toUpperCase() : char
  }
  return out as Address
}
