// checksumAddress is EIP-55 with the WebAssembly Keccak: held here to viem's getAddress
// for addresses in every case, and to its refusal of anything that is not an address.
import { expect, test } from 'bun:test'
import { getAddress, keccak256, toHex } from 'viem'
import { checksumAddress } from '../../src/wire/checksumAddress.ts'
import { keccakReady } from '../../src/wire/index.ts'

test('2,000 addresses, lower-case, upper-case and checksummed: the same as viem getAddress', async () => {
  await keccakReady
  for (let i = 0; i < 2_000; i++) {
    const lower = `0x${keccak256(toHex(i)).slice(26)}`
    const expected = getAddress(lower)
    expect(checksumAddress(lower)).toBe(expected)
    expect(checksumAddress(`0x${lower.slice(2).toUpperCase()}`)).toBe(expected)
    expect(checksumAddress(expected)).toBe(expected)
    // A wrong checksum is not checked (getAddress is not strict either): the right one comes back.
    const wrong = `0x${[...expected.slice(2)].map((char, at) => (at === i % 40 ? (char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase()) : char)).join('')}`
    expect(checksumAddress(wrong)).toBe(getAddress(wrong))
  }
  // Digits only, and every letter.
  for (const address of [`0x${'0'.repeat(40)}`, `0x${'9'.repeat(40)}`, `0x${'f'.repeat(40)}`, '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359']) {
    expect(checksumAddress(address)).toBe(getAddress(address))
  }
})

test('anything that is not 20 bytes of hex is refused as viem refuses it', async () => {
  await keccakReady
  for (const bad of ['', '0x', '0x1234', `0x${'g'.repeat(40)}`, `${'a'.repeat(42)}`, `0x${'a'.repeat(41)}`]) {
    expect(() => checksumAddress(bad)).toThrow(/Address ".*" is invalid/)
  }
})
