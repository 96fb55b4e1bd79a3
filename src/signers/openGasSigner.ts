import type { Env, Logger } from '../shared/index.ts'
import { type GasSigner, SignerError } from './gasSigner.ts'
import { keySourceOf } from './keySource.ts'

/**
 * Opens the gas key the environment names (keySource.ts: exactly one of RELAYER_PK,
 * RELAYER_KEYSTORE, RELAYER_SIGNER_URL, RELAYER_KMS_KEY_ID): a keystore is decrypted, a
 * remote signer asked whether it holds the account, a KMS key's public key read. Each
 * source's module is loaded only when it is the one used (the AWS SDK alone takes
 * ~0.6 s to load). RELAYER_PK is not opened here: the relayer's configuration holds it.
 * @throws SignerError SIGNER_CONFIG naming the source and the fix (exit 2)
 *
 * @example
 * const gasSigner = await openGasSigner(process.env, { chainId: 421614, logger, timeoutMs: 10_000 })
 */
export async function openGasSigner(env: Env, options: { chainId: number; logger: Logger; timeoutMs: number }): Promise<GasSigner> {
  const problems: string[] = []
  const source = keySourceOf(env, (problem) => problems.push(problem))
  if (!source) throw new SignerError('SIGNER_CONFIG', problems.join('; '))
  switch (source.kind) {
    case 'private-key':
      throw new SignerError('SIGNER_CONFIG', 'RELAYER_PK is read with the relayer configuration, not opened here')
    case 'keystore': {
      const { openKeystoreSigner } = await import('./keystore/index.ts')
      return openKeystoreSigner({ path: env.RELAYER_KEYSTORE!, passwordFile: env.RELAYER_KEYSTORE_PASSWORD_FILE || undefined, env })
    }
    case 'remote': {
      const { createRemoteSigner, readRemoteSignerOptions } = await import('./remote/index.ts')
      return createRemoteSigner({ ...readRemoteSignerOptions(env)!, timeoutMs: options.timeoutMs, chainId: options.chainId, logger: options.logger })
    }
    case 'aws-kms': {
      const { createAwsKmsSigner, readAwsKmsOptions } = await import('./awsKms/index.ts')
      return createAwsKmsSigner({ ...readAwsKmsOptions(env)!, timeoutMs: options.timeoutMs, logger: options.logger })
    }
  }
}
