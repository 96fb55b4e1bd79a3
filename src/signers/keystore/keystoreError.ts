import { SignerError } from '../gasSigner.ts'

/**
 * A keystore that cannot be opened at start: SIGNER_CONFIG (exit 2), its message
 * `<path>: <what is wrong>` and the fix. Never carries the password or the key.
 */
export function keystoreError(path: string, what: string, fix: string, cause?: unknown): SignerError {
  return new SignerError('SIGNER_CONFIG', `keystore ${path}: ${what}`, { fix, cause })
}
