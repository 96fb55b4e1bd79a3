// The wire module's keccak256 (WebAssembly, for the orderHash on every request) is
// viem's keccak256 byte for byte, before and after the WebAssembly module loads.
import { expect, test } from 'bun:test'
import { type Hex, hexToBytes, keccak256 as viemKeccak256 } from 'viem'
import { keccak256, keccakReady } from '../../src/wire/index.ts'
import { keccak256Bytes } from '../../src/wire/keccak.ts'
import { createRandom } from '../helpers/random.ts'

test('equals viem for empty, short, block-sized and long inputs, and for random bytes', async () => {
  await keccakReady
  const random = createRandom(4242)
  const inputs: Hex[] = ['0x', '0x00', '0xff', `0x${'ab'.repeat(135)}`, `0x${'cd'.repeat(136)}`, `0x${'ef'.repeat(137)}`, `0x${'12'.repeat(10_000)}`]
  for (let i = 0; i < 500; i++) inputs.push(`0x${random.hex(random.int(0, 700))}`)
  for (const input of inputs) expect(keccak256(input)).toBe(viemKeccak256(input))
})

test('upper-case digits and an odd number of digits read as viem reads them', async () => {
  await keccakReady
  for (const input of ['0xABCDEF', '0xabc', '0x1'] as Hex[]) expect(keccak256(input)).toBe(viemKeccak256(input))
})

test('input that is not well-formed hex gets exactly what viem gives it', async () => {
  await keccakReady
  for (const input of ['0xzz', '0x12zz', 'abcd', '0x'] as Hex[]) expect(keccak256(input)).toBe(viemKeccak256(input))
})

test('keccak256Bytes (the orderHash, hashed from bytes) equals viem for random bytes', async () => {
  await keccakReady
  const random = createRandom(4343)
  for (let i = 0; i < 500; i++) {
    const input: Hex = `0x${random.hex(random.int(0, 700))}`
    expect(keccak256Bytes(hexToBytes(input))).toBe(viemKeccak256(input))
  }
})
