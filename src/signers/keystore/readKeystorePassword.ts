import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Env } from '../../shared/index.ts'
import { SignerError } from '../gasSigner.ts'

/**
 * The keystore's password: the file RELAYER_KEYSTORE_PASSWORD_FILE names, else the systemd
 * credential of that name (`LoadCredential=RELAYER_KEYSTORE_PASSWORD_FILE:…`, found in
 * `$CREDENTIALS_DIRECTORY`). One trailing newline is not part of it, as cast and geth
 * read password files. Never taken from a variable's value.
 * @throws SignerError SIGNER_CONFIG naming the file and the fix, never the password
 */
export function readKeystorePassword(env: Env, passwordFile: string | undefined): string {
  const credential = env.CREDENTIALS_DIRECTORY ? join(env.CREDENTIALS_DIRECTORY, 'RELAYER_KEYSTORE_PASSWORD_FILE') : undefined
  const path = passwordFile ?? (credential && existsSync(credential) ? credential : undefined)
  if (!path) {
    throw new SignerError('SIGNER_CONFIG', 'RELAYER_KEYSTORE is set without its password', {
      fix: 'set RELAYER_KEYSTORE_PASSWORD_FILE to a file holding the password (mode 0600), or give the systemd credential RELAYER_KEYSTORE_PASSWORD_FILE (LoadCredential=)',
    })
  }
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as NodeJS.ErrnoException).code === 'EACCES' ? 'permission denied' : 'cannot be read'
    throw new SignerError('SIGNER_CONFIG', `the keystore's password file ${path}: ${why}`, { fix: 'point RELAYER_KEYSTORE_PASSWORD_FILE at a file this process can read, holding the keystore\'s password' })
  }
  const password = text.replace(/\r?\n$/, '')
  if (password === '') throw new SignerError('SIGNER_CONFIG', `the keystore's password file ${path} is empty`, { fix: 'write the keystore\'s password into it' })
  return password
}
