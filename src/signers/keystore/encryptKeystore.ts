import { ctr } from '@noble/ciphers/aes'
import { pbkdf2Async } from '@noble/hashes/pbkdf2'
import { scryptAsync } from '@noble/hashes/scrypt'
import { sha256 } from '@noble/hashes/sha2'
import { keccak_256 } from '@noble/hashes/sha3'
import { bytesToHex, hexToBytes, randomBytes } from '@noble/hashes/utils'
import type { Hex } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import type { KeystoreFile } from './keystoreSchema.ts'

/** geth's and cast's standard parameters: scrypt n = 2^18, r = 8, p = 1; PBKDF2 262,144 rounds. */
const scryptParams = { n: 262_144, r: 8, p: 1, dklen: 32 }
const pbkdf2Rounds = 262_144

/** A random RFC 4122 version 4 UUID. */
function uuidV4(): string {
  const bytes = randomBytes(16)
  bytes[6] = (bytes[6]! & 0x0f) | 0x40
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytesToHex(bytes)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/**
 * A Web3 Secret Storage v3 keystore of `privateKey` under `password`, as geth writes it
 * (scrypt by default, or PBKDF2-HMAC-SHA256; AES-128-CTR; random salt and IV; the address
 * without 0x), readable by cast, geth and `decryptKeystore`.
 *
 * @example
 * const file = await encryptKeystore(key, password)
 * writeFileSync(path, JSON.stringify(file), { mode: 0o600 })
 */
export async function encryptKeystore(privateKey: Hex, password: string, options: { kdf?: 'scrypt' | 'pbkdf2' } = {}): Promise<KeystoreFile> {
  const secret = new TextEncoder().encode(password.normalize('NFKC'))
  const salt = randomBytes(32)
  const kdf = options.kdf ?? 'scrypt'
  const derived =
    kdf === 'scrypt'
      ? await scryptAsync(secret, salt, { N: scryptParams.n, r: scryptParams.r, p: scryptParams.p, dkLen: scryptParams.dklen, maxmem: 300 * 1024 * 1024 })
      : await pbkdf2Async(sha256, secret, salt, { c: pbkdf2Rounds, dkLen: 32 })
  const kdfparams = kdf === 'scrypt' ? { ...scryptParams, salt: bytesToHex(salt) } : { c: pbkdf2Rounds, dklen: 32, prf: 'hmac-sha256', salt: bytesToHex(salt) }
  const iv = randomBytes(16)
  const ciphertext = ctr(derived.slice(0, 16), iv).encrypt(hexToBytes(privateKey.slice(2)))
  const mac = keccak_256(new Uint8Array([...derived.slice(16, 32), ...ciphertext]))
  derived.fill(0)
  return {
    version: 3,
    id: uuidV4(),
    address: privateKeyToAddress(privateKey).slice(2).toLowerCase(),
    crypto: { cipher: 'aes-128-ctr', cipherparams: { iv: bytesToHex(iv) }, ciphertext: bytesToHex(ciphertext), kdf, kdfparams, mac: bytesToHex(mac) },
  }
}
