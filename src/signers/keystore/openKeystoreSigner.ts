import { readFileSync } from 'node:fs'
import type { GasSigner } from '../gasSigner.ts'
import { privateKeySigner } from '../privateKeySigner.ts'
import { decryptKeystore } from './decrypt.ts'
import { keystoreError } from './keystoreError.ts'
import { readKeystorePassword } from './readPassword.ts'

/**
 * The gas signer of RELAYER_KEYSTORE: reads the password (readPassword.ts), reads and
 * decrypts the keystore once, and signs with the key held in memory only. Its
 * description names the file and the address, never the password or the key. Any
 * failure is a SIGNER_CONFIG SignerError (exit 2) naming the file and the fix.
 *
 * @example
 * const signer = await openKeystoreSigner({ path: env.RELAYER_KEYSTORE, passwordFile: env.RELAYER_KEYSTORE_PASSWORD_FILE, env })
 * signer.description // 'keystore /etc/order-relay/gas.json (0xf39F…)'
 */
export async function openKeystoreSigner({ path, passwordFile, env }: { path: string; passwordFile?: string; env: Record<string, string | undefined> }): Promise<GasSigner> {
  let json: string
  try {
    json = readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable'
    throw keystoreError(path, `cannot be read: ${code}`, 'set RELAYER_KEYSTORE to a keystore file this user can read (write one with `order-relay key new` or `order-relay key import`)')
  }
  const { password } = readKeystorePassword({ passwordFile, env })
  const key = await decryptKeystore(json, password, { path })
  const signer = privateKeySigner(key, { kind: 'keystore', description: `keystore ${path}` })
  return { ...signer, description: `keystore ${path} (${signer.address})` }
}
