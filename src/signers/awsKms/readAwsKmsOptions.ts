import type { Env } from '../../shared/env.ts'
import { SignerError } from '../gasSigner.ts'
import { isKmsKeyId } from './keyIdFormat.ts'

/**
 * The KMS gas key's variable: RELAYER_KMS_KEY_ID (a key id, key ARN, alias name or alias
 * ARN), or undefined when it is not set. The region, the credentials and a test endpoint
 * are the AWS SDK's own (AWS_REGION, AWS_PROFILE, AWS_ACCESS_KEY_ID…, AWS_ENDPOINT_URL_KMS)
 * and are read by the SDK when the signer makes its client.
 *
 * @throws SignerError SIGNER_CONFIG when the value is not a form KMS accepts.
 * @example
 * readAwsKmsOptions({ RELAYER_KMS_KEY_ID: 'alias/relayer-gas' }) // { keyId: 'alias/relayer-gas' }
 */
export function readAwsKmsOptions(env: Env): { keyId: string } | undefined {
  const raw = env.RELAYER_KMS_KEY_ID?.trim()
  if (raw === undefined || raw === '') return undefined
  if (!isKmsKeyId(raw)) {
    throw new SignerError('SIGNER_CONFIG', `RELAYER_KMS_KEY_ID must be a KMS key id, key ARN, alias name (alias/…) or alias ARN (got ${JSON.stringify(raw.slice(0, 80))})`, {
      fix: 'copy the KeyId or Arn that `aws kms describe-key --key-id <id-or-alias>` prints',
    })
  }
  return { keyId: raw }
}
