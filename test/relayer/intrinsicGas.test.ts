// The calldata cost is counted on the hex text; it must equal the byte-by-byte definition.
import { expect, test } from 'bun:test'
import { bytesToHex, type Hex } from 'viem'
import { executionGas, minimumGasLimit } from '../../src/chain/intrinsicGas.ts'

function reference(data: Hex, gas: bigint) {
  const bytes = Buffer.from(data.slice(2), 'hex')
  const zero = BigInt(bytes.filter((byte) => byte === 0).length)
  const other = BigInt(bytes.length) - zero
  const intrinsic = 21_000n + 4n * zero + 16n * other
  const floor = 21_000n + 10n * (zero + 4n * other)
  const minimum = intrinsic > floor ? intrinsic : floor
  return { minimum, execution: gas < minimum ? undefined : gas - intrinsic }
}

test('minimumGasLimit and executionGas equal the byte-by-byte definition (intrinsic cost, EIP-7623 floor)', () => {
  let seed = 7
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
  const cases: Hex[] = ['0x', '0x00', '0x01', '0x0000', '0x00ff00', '0x10', '0x01000100']
  for (let i = 0; i < 500; i++) {
    const bytes = new Uint8Array(Math.floor(random() * 600)).map(() => (random() < 0.4 ? 0 : Math.floor(random() * 256)))
    cases.push(bytesToHex(bytes))
  }
  for (const data of cases) {
    for (const gas of [0n, 21_000n, 40_000n, 200_000n]) {
      const expected = reference(data, gas)
      expect([data, minimumGasLimit(data), executionGas(data, gas)]).toEqual([data, expected.minimum, expected.execution])
    }
  }
})
