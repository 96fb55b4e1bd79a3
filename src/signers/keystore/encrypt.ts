import { ctr } from '@noble/ciphers/aes'
import { keccak_256 } from '@noble/hashes/sha3'
import type { Hex } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { deriveKey } from './kdf.ts'
import { fieldBytes, fieldHex } from './hexBytes.ts'
import type { KeystoreV3 } from './schema.ts'

/** geth's and cast's standard scrypt cost (256 MiB, about a second) and the pbkdf2 count of the spec's example. */
export const DEFAULT_KDF_PARAMS = { scrypt: { n: 2 ** 18, r: 8, p: 1 }, pbkdf2: { c: 262_144 } } as const

const random = (length: number) => crypto.getRandomValues(new Uint8Array(length))

/** A random (version 4) UUID, the keystore's `id`. */
function uuidV4(): string {
  const b = random(16)
  b[6] = (b[6]! & 0x0f) | 0x40
  b[8] = (b[8]! & 0x3f) | 0x80
  const h = fieldHex(b)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

/**
 * A Web3 Secret Storage v3 keystore of `privateKey` under `password`, as geth writes it:
 * AES-128-CTR with a random IV, the key derived by scrypt (n = 2^18, r = 8, p = 1, the
 * default) or pbkdf2 (hmac-sha256) with a random 32-byte salt, the keccak256 MAC, a
 * random v4 UUID and the address without 0x. geth, cast and decryptKeystore read it.
 *
 * @example
 * const file = await encryptKeystore(generatePrivateKey(), password)
 * writeFileSync(path, JSON.stringify(file), { mode: 0o600, flag: 'wx' })
 */
export async function encryptKeystore(
  privateKey: Hex,
  password: string,
  options: { kdf?: 'scrypt' | 'pbkdf2'; scrypt?: { n: number; r: number; p: number }; pbkdf2?: { c: number } } = {},
): Promise<KeystoreV3> {
  const address = privateKeyToAddress(privateKey)
  const kdf = options.kdf ?? 'scrypt'
  const salt = fieldHex(random(32))
  const kdfparams =
    kdf === 'scrypt'
      ? { dklen: 32, ...(options.scrypt ?? DEFAULT_KDF_PARAMS.scrypt), salt }
      : { c: (options.pbkdf2 ?? DEFAULT_KDF_PARAMS.pbkdf2).c, dklen: 32, prf: 'hmac-sha256' as const, salt }
  const derived = await deriveKey(kdf, kdfparams, password, 'being written')
  const iv = random(16)
  const plain = fieldBytes(privateKey)
  const ciphertext = ctr(derived.subarray(0, 16), iv).encrypt(plain)
  const mac = keccak_256(new Uint8Array([...derived.subarray(16, 32), ...ciphertext]))
  plain.fill(0)
  derived.fill(0)
  return {
    address: address.slice(2).toLowerCase(),
    crypto: { cipher: 'aes-128-ctr', ciphertext: fieldHex(ciphertext), cipherparams: { iv: fieldHex(iv) }, kdf, kdfparams, mac: fieldHex(mac) },
    id: uuidV4(),
    version: 3,
  }
}
