/**
 * The DER SubjectPublicKeyInfo of a secp256k1 key, as KMS `GetPublicKey` returns it,
 * up to the public point:
 *
 *   SEQUENCE (86 bytes) {
 *     SEQUENCE (16 bytes) { OID 1.2.840.10045.2.1 (id-ecPublicKey), OID 1.3.132.0.10 (secp256k1) }
 *     BIT STRING (66 bytes, 0 unused bits) 0x04 ‖ x ‖ y
 *   }
 *
 * A secp256k1 SPKI with an uncompressed point has exactly this encoding (DER allows one),
 * so matching these 24 bytes checks the structure, the algorithm and the curve at once.
 */
const secp256k1SpkiPrefix = Uint8Array.from([
  0x30, 0x56, 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a, 0x03, 0x42, 0x00, 0x04,
])

/**
 * The uncompressed secp256k1 public key (65 bytes, 0x04 ‖ x ‖ y) inside a DER
 * SubjectPublicKeyInfo; throws an Error saying what the bytes are instead when they are
 * not a secp256k1 SPKI with an uncompressed point.
 *
 * @example
 * const point = secp256k1PointFromSpki(getPublicKeyOutput.PublicKey) // Uint8Array(65) [4, …]
 */
export function secp256k1PointFromSpki(der: Uint8Array): Uint8Array {
  const expected = secp256k1SpkiPrefix.length + 64
  if (der.length !== expected) throw new Error(`the public key is ${der.length} bytes of DER, not the ${expected} of a secp256k1 SubjectPublicKeyInfo`)
  for (let i = 0; i < secp256k1SpkiPrefix.length; i++) {
    if (der[i] !== secp256k1SpkiPrefix[i]) {
      throw new Error(`the public key is not a secp256k1 SubjectPublicKeyInfo with an uncompressed point (byte ${i} is 0x${(der[i] ?? 0).toString(16).padStart(2, '0')})`)
    }
  }
  return der.slice(secp256k1SpkiPrefix.length - 1)
}
