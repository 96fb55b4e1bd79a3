import {
  type AccessList,
  type Address,
  type Hex,
  isHex,
  parseTransaction,
  recoverTransactionAddress,
  serializeTransaction,
  type TransactionSerializableEIP1559,
} from 'viem'
import { SignerError } from './gasSigner.ts'

/** Half the order of secp256k1: a signature with a larger s is refused by every node (EIP-2). */
const halfOrder = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n

/**
 * Checks a signed tx that a signer outside the process (a remote signer, KMS) returned
 * for `asked`, before it is journaled: an EIP-1559 tx, signed by `address` with a low-s
 * signature, whose chain id, nonce, to, data, gas, fee fields, value and access list
 * are exactly those asked for, in the canonical encoding. A field the asked tx leaves
 * out counts as its encoding does (0, empty). Anything else is a SIGNER_FAULT naming the
 * first field that differs (with both values: none of them is secret).
 *
 * @example
 * const raw = await remote.signTransaction(tx)
 * await checkSignedTx(tx, raw, relayerAddress) // throws SignerError('SIGNER_FAULT', …)
 */
export async function checkSignedTx(asked: TransactionSerializableEIP1559, raw: Hex, address: Address): Promise<void> {
  if (!isHex(raw, { strict: true }) || raw.length < 4) throw fault('the signer answered with something that is not a hex-encoded tx')
  let parsed: ReturnType<typeof parseTransaction>
  try {
    parsed = parseTransaction(raw)
  } catch (error) {
    throw fault('the signer returned bytes that do not decode as a tx', error)
  }
  if (parsed.type !== 'eip1559') throw fault(`the signer returned a ${parsed.type} tx where an EIP-1559 (type 2) tx was asked`)
  const signed = parsed as TransactionSerializableEIP1559 & { r?: Hex; s?: Hex; yParity?: number; v?: bigint }
  if (signed.r === undefined || signed.s === undefined || signed.yParity === undefined) throw fault('the signer returned an unsigned tx')

  const differs = firstDifference(asked, signed)
  if (differs) throw fault(`the signed tx has ${differs}`)

  if (BigInt(signed.s) > halfOrder) throw fault('the signature has a high s value, which nodes refuse (EIP-2)')
  let sender: Address
  try {
    sender = await recoverTransactionAddress({ serializedTransaction: raw as `0x02${string}` })
  } catch (error) {
    throw fault('no sender can be recovered from the signature of the signed tx', error)
  }
  if (sender.toLowerCase() !== address.toLowerCase()) throw fault(`the signed tx is signed by ${sender} where ${address} was asked`)

  // The fields match and the sender is right; the bytes must also be the one encoding of
  // them, so the hash journaled is the hash the chain sees.
  const canonical = serializeTransaction({ ...withoutSignature(signed), type: 'eip1559' }, { r: signed.r, s: signed.s, yParity: signed.yParity })
  if (canonical.toLowerCase() !== raw.toLowerCase()) throw fault('the signed tx is not in the canonical encoding of its fields')
}

/** Why checkSignedTx refused a tx, as data: its message and fix (neither holds a secret). */
export type SignedTxFault = { message: string; fix?: string | undefined }

/**
 * checkSignedTx's verdict as data, for a caller that hands it across a thread: null when
 * the tx passes, else the refusal's message and fix.
 */
export async function signedTxFault(asked: TransactionSerializableEIP1559, raw: Hex, address: Address): Promise<SignedTxFault | null> {
  try {
    await checkSignedTx(asked, raw, address)
    return null
  } catch (error) {
    if (!(error instanceof SignerError)) throw error
    return { message: error.shortMessage, fix: error.fix }
  }
}

function fault(message: string, cause?: unknown): SignerError {
  return new SignerError('SIGNER_FAULT', `signer fault: ${message}; it is not broadcast`, {
    fix: "check the signer's key, chain id and version: it must sign exactly the tx the relayer asks for",
    cause,
  })
}

function withoutSignature(tx: TransactionSerializableEIP1559 & { r?: Hex; s?: Hex; yParity?: number; v?: bigint }): TransactionSerializableEIP1559 {
  const { r: _r, s: _s, yParity: _yParity, v: _v, ...rest } = tx
  return rest
}

/** "nonce 7 where 6 was asked" for the first field that differs, else undefined. */
function firstDifference(asked: TransactionSerializableEIP1559, signed: TransactionSerializableEIP1559): string | undefined {
  const pairs: [string, string, string][] = [
    ['chain id', String(signed.chainId ?? 0), String(asked.chainId ?? 0)],
    ['nonce', String(signed.nonce ?? 0), String(asked.nonce ?? 0)],
    ['to', (signed.to ?? 'none').toLowerCase(), (asked.to ?? 'none').toLowerCase()],
    ['data', (signed.data ?? '0x').toLowerCase(), (asked.data ?? '0x').toLowerCase()],
    ['gas', String(signed.gas ?? 0n), String(asked.gas ?? 0n)],
    ['maxFeePerGas', String(signed.maxFeePerGas ?? 0n), String(asked.maxFeePerGas ?? 0n)],
    ['maxPriorityFeePerGas', String(signed.maxPriorityFeePerGas ?? 0n), String(asked.maxPriorityFeePerGas ?? 0n)],
    ['value', String(signed.value ?? 0n), String(asked.value ?? 0n)],
    ['access list', accessListText(signed.accessList), accessListText(asked.accessList)],
  ]
  for (const [field, got, want] of pairs) {
    if (got === want) continue
    if (field === 'data') return `other data (${byteLength(got)} bytes, ${got.slice(0, 10)}…) than asked (${byteLength(want)} bytes, ${want.slice(0, 10)}…)`
    return `${field} ${got} where ${want} was asked`
  }
  return undefined
}

const byteLength = (hex: string) => (hex.length - 2) / 2

function accessListText(list: AccessList | undefined): string {
  if (!list || list.length === 0) return 'empty'
  return JSON.stringify(list.map((item) => [item.address.toLowerCase(), item.storageKeys.map((key) => key.toLowerCase())]))
}
