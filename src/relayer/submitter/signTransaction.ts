import { type Hex, type LocalAccount, parseSignature, serializeTransaction, type TransactionSerializableEIP1559 } from 'viem'
import { bytesToHex, hexToBytes } from '../../wire/hexBytes.ts'
import { keccak256, keccak256Bytes } from '../../wire/keccak.ts'
import { type Eip1559Signature, isPlainEip1559, serializeEip1559 } from './serializeEip1559.ts'

/**
 * Signs an EIP-1559 transaction with the gas key: the same bytes as viem's
 * `account.signTransaction`, serialized straight into bytes (serializeEip1559.ts) and
 * its signing hash taken by the WebAssembly Keccak (viem's JavaScript one cost ~40 µs
 * of every order's ~1 KB transaction under Bun). The key stays inside the account; an
 * account without `sign`, or a transaction with a value or an access list, signs the
 * viem way.
 *
 * @example
 * const raw = await signTransaction(account, { type: 'eip1559', chainId, nonce, to, data, gas, maxFeePerGas, maxPriorityFeePerGas })
 */
export async function signTransaction(account: LocalAccount, transaction: TransactionSerializableEIP1559): Promise<Hex> {
  if (!account.sign) return account.signTransaction(transaction)
  if (!isPlainEip1559(transaction)) {
    const signature = await account.sign({ hash: keccak256(serializeTransaction(transaction)) })
    return serializeTransaction(transaction, parseSignature(signature))
  }
  const signature = await account.sign({ hash: keccak256Bytes(serializeEip1559(transaction)) })
  return bytesToHex(serializeEip1559(transaction, splitSignature(signature)))
}

/** r ‖ s ‖ v (v 27/28, or 0/1) as the transaction carries them. */
function splitSignature(signature: Hex): Eip1559Signature {
  const bytes = hexToBytes(signature)
  if (bytes?.length !== 65) throw new Error('the signature is not 65 bytes of hex')
  const v = bytes[64]!
  if (v !== 0 && v !== 1 && v !== 27 && v !== 28) throw new Error(`the signature's v is ${v}, not 27 or 28`)
  return { yParity: v === 1 || v === 28 ? 1 : 0, r: bytes.subarray(0, 32), s: bytes.subarray(32, 64) }
}
