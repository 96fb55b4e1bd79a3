// The relayer's signer gives viem's bytes exactly (the signing hash is taken by the
// WebAssembly Keccak instead of viem's JavaScript one), and the node takes them.
import { expect, test } from 'bun:test'
import { type Hex, keccak256 as viemKeccak, parseTransaction, recoverTransactionAddress, stringToHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { signTransaction } from '../../src/relayer/submitter/index.ts'
import { keccakReady } from '../../src/wire/index.ts'

test('500 random transactions: the same raw bytes as viem account.signTransaction, recovering to the key', async () => {
  await keccakReady
  for (let i = 0; i < 500; i++) {
    const account = privateKeyToAccount(generatePrivateKey())
    const size = (i * 37) % 1500
    const data = (size === 0 ? '0x' : viemKeccak(stringToHex(`data ${i}`)).slice(0, 2) + 'ab'.repeat(size)) as Hex
    const transaction = {
      type: 'eip1559' as const,
      chainId: i % 2 ? 421614 : 46630,
      nonce: i * 7919,
      to: privateKeyToAccount(generatePrivateKey()).address,
      data,
      gas: 21_000n + BigInt(i) * 1_000n,
      maxFeePerGas: 1_000_000_000n + BigInt(i),
      maxPriorityFeePerGas: BigInt(i % 3) * 1_000_000n,
    }
    const raw = await signTransaction(account, transaction)
    expect(raw).toBe(await account.signTransaction(transaction))
    if (i % 50 === 0) {
      expect(await recoverTransactionAddress({ serializedTransaction: raw as `0x02${string}` })).toBe(account.address)
      expect(parseTransaction(raw).nonce).toBe(transaction.nonce)
    }
  }
})

test('an account without sign() signs the viem way', async () => {
  const account = privateKeyToAccount(generatePrivateKey())
  const transaction = { type: 'eip1559' as const, chainId: 421614, nonce: 1, to: account.address, data: '0x' as Hex, gas: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }
  expect(await signTransaction({ ...account, sign: undefined }, transaction)).toBe(await account.signTransaction(transaction))
})

test('a transaction with a value or an access list is signed the viem way, and so a nonce 0, zero fees and empty data are too', async () => {
  const account = privateKeyToAccount(generatePrivateKey())
  const base = { type: 'eip1559' as const, chainId: 421614, nonce: 0, to: account.address, data: '0x' as Hex, gas: 21_000n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }
  const withValue = { ...base, value: 5n }
  const withAccessList = { ...base, accessList: [{ address: account.address, storageKeys: [viemKeccak('0x01')] }] }
  for (const transaction of [base, withValue, withAccessList]) expect(await signTransaction(account, transaction)).toBe(await account.signTransaction(transaction))
})
