import { ctr } from '@noble/ciphers/aes'
import { keccak_256 } from '@noble/hashes/sha3'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils'
import * as v from 'valibot'
import type { Hex } from 'viem'
import { SignerError } from '../gasSigner.ts'
import { deriveKey } from './deriveKey.ts'
import { issueList, KeystoreFileSchema } from './keystoreSchema.ts'

/** Constant-time equality of two MACs. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!
  return diff === 0
}

/**
 * The private key a Web3 Secret Storage v3 keystore holds (what `cast wallet new` and
 * `import`, geth and `order-relay key` write): the key derived from the password (scrypt or
 * PBKDF2-HMAC-SHA256), the MAC checked (keccak256 of the derived key's second half and
 * the ciphertext) before anything is decrypted, then AES-128-CTR. `path` only names the
 * file in errors; the password and key never appear in one.
 * @throws SignerError SIGNER_CONFIG: not JSON, not a v3 keystore, an unsupported KDF or
 * cipher, parameters out of bounds, or a password that does not open it
 *
 * @example
 * const key = await decryptKeystore(await Bun.file(path).text(), password, { path })
 */
export async function decryptKeystore(json: string | object, password: string, { path }: { path: string }): Promise<Hex> {
  const fail = (problem: string, fix: string) => new SignerError('SIGNER_CONFIG', `RELAYER_KEYSTORE ${path}: ${problem}`, { fix })
  const notKeystore = 'point RELAYER_KEYSTORE at the keystore file itself (JSON written by cast wallet new or import, geth, or order-relay key new)'
  let data: unknown = json
  if (typeof json === 'string') {
    try {
      data = JSON.parse(json)
    } catch {
      throw fail('it is not JSON (a truncated or corrupt file?)', notKeystore)
    }
  }
  const parsed = v.safeParse(KeystoreFileSchema, data)
  if (!parsed.success) throw fail(`it is not a Web3 Secret Storage v3 keystore (${issueList(parsed.issues)})`, notKeystore)
  const crypto = parsed.output.crypto ?? parsed.output.Crypto
  if (!crypto) throw fail('it has no crypto section', notKeystore)
  if (crypto.cipher !== 'aes-128-ctr') throw fail(`its cipher ${JSON.stringify(crypto.cipher.slice(0, 40))} is not supported (aes-128-ctr)`, 'write the key into a keystore with aes-128-ctr: order-relay key import, or cast wallet import')

  const derived = await deriveKey(crypto.kdf, crypto.kdfparams, password, (problem) => {
    throw fail(problem, 'write the key into a keystore with scrypt or pbkdf2 and sane parameters: order-relay key import, or cast wallet import')
  })
  const ciphertext = hexToBytes(crypto.ciphertext)
  const mac = keccak_256(new Uint8Array([...derived.slice(16, 32), ...ciphertext]))
  if (!sameBytes(mac, hexToBytes(crypto.mac))) {
    throw fail('the password does not open it (MAC mismatch: a wrong password, or a changed file)', 'check that RELAYER_KEYSTORE_PASSWORD_FILE (or the systemd credential) holds this keystore\'s password, and nothing else but one trailing newline')
  }
  const key = ctr(derived.slice(0, 16), hexToBytes(crypto.cipherparams.iv)).decrypt(ciphertext)
  derived.fill(0)
  return `0x${bytesToHex(key)}`
}
