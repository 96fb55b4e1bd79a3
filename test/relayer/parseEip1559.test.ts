// The journal reads a tx's fees and call back from its signed bytes: the fields must be
// viem's `parseTransaction`'s for every size of each field.
import { expect, test } from 'bun:test'
import { type Hex, parseTransaction } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { parseEip1559 } from '../../src/relayer/submitter/parseEip1559.ts'

const account = privateKeyToAccount(generatePrivateKey())

// Sizes around each RLP boundary: a single byte under 0x80 is its own item, 55/56 bytes
// switch to a long header, 256 and 65,536 grow the length of the length.
const dataSizes = [0, 1, 2, 55, 56, 57, 255, 256, 580, 65_535, 65_536, 70_000]
const integers = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, 21_000n, 2n ** 64n - 1n, 2n ** 255n + 12345n]

test('the fees, gas, nonce, to and data of signed transactions are viem parseTransaction’s', async () => {
  let checked = 0
  for (const [i, size] of dataSizes.entries()) {
    for (const [j, integer] of integers.entries()) {
      // A data of one byte under 0x80 is encoded as that byte, one at 0x80 or over with a header.
      const byte = (i + j) % 2 ? '05' : 'c3'
      const data = `0x${byte.repeat(size)}` as Hex
      const nonce = Number(integers[(j + 3) % integers.length]! % BigInt(Number.MAX_SAFE_INTEGER))
      const transaction = {
        type: 'eip1559' as const,
        chainId: j % 2 ? 421614 : 1,
        nonce,
        to: privateKeyToAccount(generatePrivateKey()).address,
        data,
        gas: integers[(j + 5) % integers.length]!,
        maxFeePerGas: integer,
        maxPriorityFeePerGas: integer / 2n,
      }
      const raw = await account.signTransaction(transaction)
      const viem = parseTransaction(raw)
      expect(parseEip1559(raw)).toEqual({
        nonce: viem.nonce ?? 0,
        maxPriorityFeePerGas: viem.maxPriorityFeePerGas ?? 0n,
        maxFeePerGas: viem.maxFeePerGas ?? 0n,
        gas: viem.gas ?? 0n,
        to: viem.to!.toLowerCase() as Hex,
        data: viem.data ?? '0x',
      })
      checked++
    }
  }
  expect(checked).toBe(dataSizes.length * integers.length)
})

test('hex that is not a signed EIP-1559 transaction is refused with the reason', async () => {
  const raw = await account.signTransaction({ type: 'eip1559', chainId: 1, nonce: 3, to: account.address, data: '0x1234', gas: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n })
  const legacy = await account.signTransaction({ type: 'legacy', chainId: 1, nonce: 3, to: account.address, gas: 21_000n, gasPrice: 2n })
  expect(() => parseEip1559(legacy)).toThrow('it does not start with the type byte 0x02')
  expect(() => parseEip1559(raw.slice(0, -2) as Hex)).toThrow('its list does not span the rest of it')
  expect(() => parseEip1559(`${raw}00` as Hex)).toThrow('its list does not span the rest of it')
  expect(() => parseEip1559(`0x02${'zz'.repeat(8)}` as Hex)).toThrow('it is not hex')
  // A `to` of 19 bytes: the list's length still matches, the address does not.
  const shortTo = `0x02${'c4'}${'01'}${'80'}${'80'}${'93'}` as Hex
  expect(() => parseEip1559(shortTo)).toThrow(/not a signed EIP-1559 transaction/)
})
