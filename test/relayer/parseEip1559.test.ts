// The journal reads a tx's fees and call back from its signed bytes with viem's
// `parseTransaction`: every size of each field reads back, the fields an encoding leaves
// out when zero filled in, and what is not a signed EIP-1559 call is refused by name.
import { expect, test } from 'bun:test'
import { type Hex, serializeTransaction } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { parseEip1559 } from '../../src/relayer/journal/parseEip1559.ts'

const account = privateKeyToAccount(generatePrivateKey())

// Sizes around each RLP boundary: a single byte under 0x80 is its own item, 55/56 bytes
// switch to a long header, 256 and 65,536 grow the length of the length.
const dataSizes = [0, 1, 2, 55, 56, 57, 255, 256, 580, 65_535, 65_536, 70_000]
const integers = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, 21_000n, 2n ** 64n - 1n, 2n ** 255n + 12345n]

test('the fees, gas, nonce, to and data of signed transactions read back as they were signed, zeros and empty data included', async () => {
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
      const { nonce: signedNonce, maxPriorityFeePerGas, maxFeePerGas, gas, to } = transaction
      expect(parseEip1559(raw)).toEqual({ nonce: signedNonce, maxPriorityFeePerGas, maxFeePerGas, gas, to: to.toLowerCase() as Hex, data })
      checked++
    }
  }
  expect(checked).toBe(dataSizes.length * integers.length)
})

test('hex that is not a signed EIP-1559 transaction calling a contract is refused, with the reason', async () => {
  const fields = { type: 'eip1559', chainId: 1, nonce: 3, to: account.address, data: '0x1234', gas: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n } as const
  const raw = await account.signTransaction(fields)
  const legacy = await account.signTransaction({ type: 'legacy', chainId: 1, nonce: 3, to: account.address, gas: 21_000n, gasPrice: 2n })
  const refusal = (hex: Hex) => {
    try {
      return parseEip1559(hex)
    } catch (error) {
      return (error as Error).message.replace('parseEip1559: not a signed EIP-1559 transaction: ', '')
    }
  }
  expect(refusal(legacy)).toBe('it does not start with the type byte 0x02')
  expect(refusal(serializeTransaction(fields))).toBe('it is not signed')
  expect(refusal(await account.signTransaction({ ...fields, to: null }))).toBe('it has no `to` (a contract creation)')
  expect(refusal(raw.slice(0, -2) as Hex)).toBe('Position `101` is out of bounds (`0 < position < 101`).')
  expect(refusal(`${raw}00`)).toBe('RLP payload encodes a single item, but `1` trailing byte remains.')
  expect(refusal(`0x02${'zz'.repeat(8)}`)).toBe('Invalid byte sequence ("zz" in "zzzzzzzzzzzzzzzz").')
  // A `to` of 19 bytes: the list's length matches, the address does not.
  expect(refusal(`0x02${'c4'}${'01'}${'80'}${'80'}${'93'}`)).toBe('Position `23` is out of bounds (`0 < position < 5`).')
})
