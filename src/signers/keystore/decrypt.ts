import { ctr } from '@noble/ciphers/aes'
import { equalBytes } from '@noble/ciphers/utils'
import { keccak_256 } from '@noble/hashes/sha3'
import { bytesToHex, type Hex } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import * as v from 'valibot'
import { deriveKey } from './kdf.ts'
import { keystoreError } from './keystoreError.ts'
import { fieldBytes } from './hexBytes.ts'
import { KeystoreSchema } from './schema.ts'

const rewrite = 'restore the file from its backup, or write it again with `order-relay key import`'

/**
 * The private key in a Web3 Secret Storage v3 keystore (geth's, Foundry cast's or this
 * program's). Derives the key with the file's KDF (scrypt or pbkdf2), checks the MAC
 * (keccak256 of the derived key's second 16 bytes and the ciphertext) before
 * decrypting with AES-128-CTR, and checks the address the file names, if any. Every
 * failure is a SIGNER_CONFIG SignerError naming `path` and the fix, never the
 * password or the key.
 *
 * @example
 * const key = await decryptKeystore(readFileSync(file, 'utf8'), password, { path: file })
 */
export async function decryptKeystore(json: string | object, password: string, { path }: { path: string }): Promise<Hex> {
  let data: unknown = json
  if (typeof json === 'string') {
    try {
      data = JSON.parse(json)
    } catch (error) {
      throw keystoreError(path, `is not valid JSON (${(error as Error).message.slice(0, 120)})`, rewrite)
    }
  }
  const parsed = v.safeParse(KeystoreSchema, data)
  if (!parsed.success) {
    const what = parsed.issues.map((issue) => `${v.getDotPath(issue) ?? 'the file'}: ${issue.message}`).join('; ')
    throw keystoreError(path, `is not a Web3 Secret Storage v3 keystore (${what})`, rewrite)
  }
  const { crypto, address } = parsed.output
  if (crypto.cipher !== 'aes-128-ctr') {
    throw keystoreError(path, `cipher ${JSON.stringify(crypto.cipher.slice(0, 40))} is not supported (only aes-128-ctr)`, 'write the keystore again with `order-relay key import` (or `cast wallet import`)')
  }
  const derived = await deriveKey(crypto.kdf, crypto.kdfparams, password, path)
  const ciphertext = fieldBytes(crypto.ciphertext)
  const mac = keccak_256(new Uint8Array([...derived.subarray(16, 32), ...ciphertext]))
  if (!equalBytes(mac, fieldBytes(crypto.mac))) {
    throw keystoreError(path, 'the password does not open it (MAC mismatch)', 'check RELAYER_KEYSTORE_PASSWORD_FILE: it must hold the password the keystore was written with (one trailing newline is ignored)')
  }
  const plain = ctr(derived.subarray(0, 16), fieldBytes(crypto.cipherparams.iv)).decrypt(ciphertext)
  derived.fill(0)
  const key = bytesToHex(plain)
  plain.fill(0)
  let actual: string
  try {
    actual = privateKeyToAddress(key)
  } catch (error) {
    throw keystoreError(path, 'holds no valid secp256k1 private key', rewrite, error instanceof Error ? new Error(error.name) : undefined)
  }
  if (address !== undefined && actual.slice(2).toLowerCase() !== address.replace(/^0x/, '').toLowerCase()) {
    throw keystoreError(path, `its address field ${address} is not the address of the key it holds (${actual})`, rewrite)
  }
  return key
}
