import { secp256k1 } from '@noble/curves/secp256k1'
import { type Address, type Hex, isAddressEqual, numberToHex, toHex } from 'viem'
import { publicKeyToAddress } from 'viem/accounts'

/** An Ethereum signature: r and s as 32-byte hex, s in the low half of the curve order. */
export type EthSignature = { r: Hex; s: Hex; yParity: 0 | 1 }

/**
 * Turns the DER ECDSA signature KMS returns for `digest` into the signature Ethereum
 * accepts: r and s read from the DER (noble's strict parser), s moved to the low half
 * of the curve order (EIP-2: KMS returns either half), and the recovery id found by
 * recovering the public key for both parities and keeping the one whose address is the
 * key's. Throws an Error when the bytes are not DER or neither parity recovers to
 * `address` (a signature by another key, or over another digest).
 *
 * @example
 * const { r, s, yParity } = ethSignatureFromDer(sign.Signature, digest, signer.address)
 */
export function ethSignatureFromDer(der: Uint8Array, digest: Uint8Array, address: Address): EthSignature {
  const signature = secp256k1.Signature.fromDER(der).normalizeS()
  for (const yParity of [0, 1] as const) {
    let recovered: Address
    try {
      recovered = publicKeyToAddress(toHex(signature.addRecoveryBit(yParity).recoverPublicKey(digest).toRawBytes(false)))
    } catch {
      // No point has this r with this parity: try the other.
      continue
    }
    if (isAddressEqual(recovered, address)) return { r: numberToHex(signature.r, { size: 32 }), s: numberToHex(signature.s, { size: 32 }), yParity }
  }
  throw new Error(`the signature does not recover to ${address} with either recovery id`)
}
