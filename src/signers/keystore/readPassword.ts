import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SignerError } from '../gasSigner.ts'

/** The systemd credential (`LoadCredential=` / `SetCredentialEncrypted=`) the password may come from. */
export const PASSWORD_CREDENTIAL = 'RELAYER_KEYSTORE_PASSWORD_FILE'

/**
 * The keystore's password: the file `passwordFile` (RELAYER_KEYSTORE_PASSWORD_FILE)
 * names, else the systemd credential of that name in `$CREDENTIALS_DIRECTORY`. One
 * trailing newline (`\n` or `\r\n`) is dropped, as cast and geth do with password files;
 * anything else is the password. Neither present, or unreadable: SIGNER_CONFIG naming
 * the file and both ways to give it.
 *
 * @example
 * const { password, source } = readKeystorePassword({ passwordFile: '/etc/order-relay/pw', env: process.env })
 */
export function readKeystorePassword({ passwordFile, env }: { passwordFile?: string; env: Record<string, string | undefined> }): { password: string; source: string } {
  const both = `set RELAYER_KEYSTORE_PASSWORD_FILE to a file holding the password, or give systemd a credential named ${PASSWORD_CREDENTIAL} (LoadCredential=${PASSWORD_CREDENTIAL}:/path/to/file)`
  const credentials = env.CREDENTIALS_DIRECTORY
  const source = passwordFile ?? (credentials ? join(credentials, PASSWORD_CREDENTIAL) : undefined)
  if (source === undefined) {
    throw new SignerError('SIGNER_CONFIG', 'RELAYER_KEYSTORE is set but no password is given: RELAYER_KEYSTORE_PASSWORD_FILE is unset and there is no systemd credential (CREDENTIALS_DIRECTORY is unset)', { fix: both })
  }
  let text: string
  try {
    text = readFileSync(source, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable'
    const what = passwordFile !== undefined ? 'RELAYER_KEYSTORE_PASSWORD_FILE' : `the systemd credential ${PASSWORD_CREDENTIAL}`
    throw new SignerError('SIGNER_CONFIG', `cannot read the keystore password from ${what} ${source}: ${code}`, { fix: both })
  }
  return { password: text.replace(/\r?\n$/, ''), source }
}
