// checkSignedTx on txs signed by real keys (viem's local accounts): the tx asked for
// passes; each way a signer can sign something else is refused, naming what differs.
import { describe, expect, test } from 'bun:test'
import { fromRlp, type Hex, numberToHex, parseTransaction, serializeTransaction, toRlp, type TransactionSerializableEIP1559 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/devnet/index.ts'
import { checkSignedTx } from '../../src/signers/checkSignedTx.ts'
import { SignerError } from '../../src/signers/gasSigner.ts'

const key = privateKeyToAccount(devnetAccounts.relayer.privateKey)
const other = privateKeyToAccount(devnetAccounts.spare.privateKey)
const order = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

const asked: TransactionSerializableEIP1559 = {
  type: 'eip1559',
  chainId: 421614,
  nonce: 6,
  to: devnetAccounts.payee.address,
  data: '0xdeadbeef',
  gas: 120_000n,
  maxFeePerGas: 2_000_000_000n,
  maxPriorityFeePerGas: 100_000_000n,
}

async function fault(raw: Hex, tx: TransactionSerializableEIP1559 = asked): Promise<string> {
  try {
    await checkSignedTx(tx, raw, key.address)
  } catch (error) {
    expect(error).toBeInstanceOf(SignerError)
    expect((error as SignerError).code).toBe('SIGNER_FAULT')
    expect((error as SignerError).fix).toBe("check the signer's key, chain id and version: it must sign exactly the tx the relayer asks for")
    return (error as SignerError).shortMessage
  }
  throw new Error('checkSignedTx accepted the tx')
}

/** The signed tx's RLP items after the type byte, with `change` applied, encoded again with the signature kept. */
function reencode(raw: Hex, change: (items: Hex[]) => void): Hex {
  const items = fromRlp(`0x${raw.slice(4)}`, 'hex') as Hex[]
  change(items)
  return `0x02${toRlp(items).slice(2)}`
}

describe('accepted', () => {
  test('the tx asked for, signed by the key', async () => {
    await checkSignedTx(asked, await key.signTransaction(asked), key.address)
  })

  test('addresses and data in any case; fields left out as 0 and empty', async () => {
    const upper = { ...asked, data: '0xDEADBEEF' as Hex, to: devnetAccounts.payee.address.toUpperCase().replace('0X', '0x') as Hex }
    await checkSignedTx(upper, await key.signTransaction(asked), key.address.toLowerCase() as Hex)
    const bare: TransactionSerializableEIP1559 = { type: 'eip1559', chainId: 421614, to: devnetAccounts.payee.address }
    await checkSignedTx(bare, await key.signTransaction({ ...bare, nonce: 0, gas: 0n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, value: 0n, data: '0x' }), key.address)
  })
})

describe('refused, naming the field', () => {
  const cases: [string, Partial<TransactionSerializableEIP1559>, string][] = [
    ['chain id', { chainId: 46630 }, 'the signed tx has chain id 46630 where 421614 was asked'],
    ['nonce', { nonce: 7 }, 'the signed tx has nonce 7 where 6 was asked'],
    ['to', { to: other.address }, `the signed tx has to ${other.address.toLowerCase()} where ${devnetAccounts.payee.address.toLowerCase()} was asked`],
    ['no to', { to: undefined }, `the signed tx has to none where ${devnetAccounts.payee.address.toLowerCase()} was asked`],
    ['data', { data: '0xdeadbeef00' }, 'the signed tx has other data (5 bytes, 0xdeadbeef…) than asked (4 bytes, 0xdeadbeef…)'],
    ['gas', { gas: 120_001n }, 'the signed tx has gas 120001 where 120000 was asked'],
    ['maxFeePerGas', { maxFeePerGas: 2_000_000_001n }, 'the signed tx has maxFeePerGas 2000000001 where 2000000000 was asked'],
    ['maxPriorityFeePerGas', { maxPriorityFeePerGas: 1n }, 'the signed tx has maxPriorityFeePerGas 1 where 100000000 was asked'],
    ['value', { value: 10n ** 18n }, 'the signed tx has value 1000000000000000000 where 0 was asked'],
    [
      'access list',
      { accessList: [{ address: other.address, storageKeys: [] }] },
      `the signed tx has access list [["${other.address.toLowerCase()}",[]]] where empty was asked`,
    ],
  ]
  for (const [field, change, message] of cases) {
    test(field, async () => {
      expect(await fault(await key.signTransaction({ ...asked, ...change }))).toBe(`signer fault: ${message}; it is not broadcast`)
    })
  }

  test('another signer', async () => {
    expect(await fault(await other.signTransaction(asked))).toBe(`signer fault: the signed tx is signed by ${other.address} where ${key.address} was asked; it is not broadcast`)
  })

  test('the signature with its recovery bit flipped recovers another sender', async () => {
    const flipped = reencode(await key.signTransaction(asked), (items) => {
      items[9] = items[9] === '0x' ? '0x01' : '0x'
    })
    expect(await fault(flipped)).toStartWith('signer fault: the signed tx is signed by 0x')
  })

  test('a high-s signature (the same sender, refused by nodes)', async () => {
    const high = reencode(await key.signTransaction(asked), (items) => {
      items[9] = items[9] === '0x' ? '0x01' : '0x'
      items[11] = numberToHex(order - BigInt(items[11] as Hex))
    })
    expect(await fault(high)).toBe('signer fault: the signature has a high s value, which nodes refuse (EIP-2); it is not broadcast')
  })

  test('the right tx in another encoding (a nonce with a leading zero byte)', async () => {
    const padded = reencode(await key.signTransaction(asked), (items) => {
      items[1] = '0x0006'
    })
    expect(parseTransaction(padded).nonce).toBe(6)
    expect(await fault(padded)).toBe('signer fault: the signed tx is not in the canonical encoding of its fields; it is not broadcast')
  })

  test('a legacy tx, an unsigned tx, bytes that are no tx, text that is not hex', async () => {
    const legacy = await key.signTransaction({ type: 'legacy', chainId: 421614, nonce: 6, to: asked.to ?? null, data: asked.data, gas: asked.gas ?? 0n, gasPrice: 1n })
    expect(await fault(legacy)).toBe('signer fault: the signer returned a legacy tx where an EIP-1559 (type 2) tx was asked; it is not broadcast')
    expect(await fault(serializeTransaction(asked))).toBe('signer fault: the signer returned an unsigned tx; it is not broadcast')
    expect(await fault(`${await key.signTransaction(asked)}00` as Hex)).toBe('signer fault: the signer returned bytes that do not decode as a tx; it is not broadcast')
    expect(await fault('0x02c0')).toBe('signer fault: the signer returned bytes that do not decode as a tx; it is not broadcast')
    expect(await fault('signed' as Hex)).toBe('signer fault: the signer answered with something that is not a hex-encoded tx; it is not broadcast')
  })
})
