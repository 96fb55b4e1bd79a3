import { readFileSync } from 'node:fs'
import { privateKeyToAddress } from 'viem/accounts'
import type { Env } from '../../shared/index.ts'
import { type GasSigner, SignerError } from '../gasSigner.ts'
import { privateKeySigner } from '../privateKeySigner.ts'
import { decryptKeystore } from './decryptKeystore.ts'
import { readKeystorePassword } from './readKeystorePassword.ts'

/** The order n of secp256k1: a key is a scalar from 1 to n − 1. */
const secp256k1Order = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/**
 * The gas key from an encrypted keystore (RELAYER_KEYSTORE), decrypted once, here, with
 * its password (readKeystorePassword.ts); from then on it is a key in memory that signs
 * in the relayer's signer thread. The file's `address`, where it names one, must be the
 * key's.
 * @throws SignerError SIGNER_CONFIG naming the file and the fix
 *
 * @example
 * const signer = await openKeystoreSigner({ path: '/etc/order-relay/keystore.json', passwordFile: '/etc/order-relay/password', env: process.env })
 */
export async function openKeystoreSigner(options: { path: string; passwordFile?: string | undefined; env: Env }): Promise<GasSigner> {
  const { path } = options
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as NodeJS.ErrnoException).code === 'EACCES' ? 'permission denied' : 'cannot be read'
    throw new SignerError('SIGNER_CONFIG', `RELAYER_KEYSTORE ${path}: ${why}`, { fix: 'point RELAYER_KEYSTORE at the keystore file (order-relay key new or import writes one)' })
  }
  const password = readKeystorePassword(options.env, options.passwordFile)
  const key = await decryptKeystore(text, password, { path })
  const scalar = BigInt(key)
  if (key.length !== 66 || scalar === 0n || scalar >= secp256k1Order) {
    throw new SignerError('SIGNER_CONFIG', `RELAYER_KEYSTORE ${path}: it does not hold a secp256k1 private key`, { fix: 'write the key into a new keystore (order-relay key import)' })
  }
  const address = privateKeyToAddress(key)
  const named = (JSON.parse(text) as { address?: unknown }).address
  if (typeof named === 'string' && named.replace(/^0x/i, '').toLowerCase() !== address.slice(2).toLowerCase()) {
    throw new SignerError('SIGNER_CONFIG', `RELAYER_KEYSTORE ${path}: its address field (0x${named.replace(/^0x/i, '')}) is not the address of the key it holds (${address})`, {
      fix: 'the file was changed or put together by hand: write the key into a new keystore (order-relay key import)',
    })
  }
  return privateKeySigner(key, { kind: 'keystore', description: `keystore ${path} (${address})` })
}
