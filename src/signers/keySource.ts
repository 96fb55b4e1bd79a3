import type { GasSignerKind } from './gasSigner.ts'

/** The variable that names each source of the gas key; exactly one of them is set. */
export const keySourceVariables = {
  RELAYER_PK: 'private-key',
  RELAYER_KEYSTORE: 'keystore',
  RELAYER_SIGNER_URL: 'remote',
  RELAYER_KMS_KEY_ID: 'aws-kms',
} as const satisfies Record<string, GasSignerKind>

export type KeySourceVariable = keyof typeof keySourceVariables

/**
 * Which source of the gas key the environment names: the one of RELAYER_PK,
 * RELAYER_KEYSTORE, RELAYER_SIGNER_URL and RELAYER_KMS_KEY_ID that is set. None, or more
 * than one, is a problem for `problem` (the config reader's list), naming the variables
 * set, never their values.
 *
 * @example
 * keySourceOf({ RELAYER_KEYSTORE: '/etc/order-relay/key.json' }, problems.push) // { kind: 'keystore', variable: 'RELAYER_KEYSTORE' }
 */
export function keySourceOf(env: Record<string, string | undefined>, problem: (message: string) => void): { kind: GasSignerKind; variable: KeySourceVariable } | undefined {
  const set = (Object.keys(keySourceVariables) as KeySourceVariable[]).filter((name) => env[name] !== undefined && env[name] !== '')
  if (set.length === 1) return { kind: keySourceVariables[set[0]!], variable: set[0]! }
  if (set.length === 0) {
    problem('RELAYER_PK is required: the hex private key of the gas account (0x + 64 hex digits), or another source of the gas key: RELAYER_KEYSTORE (an encrypted keystore file), RELAYER_SIGNER_URL (a remote signer) or RELAYER_KMS_KEY_ID (an AWS KMS key); docs/keys.md')
  } else {
    problem(`${set.join(' and ')} are set: set exactly one source of the gas key (docs/keys.md)`)
  }
  return undefined
}
