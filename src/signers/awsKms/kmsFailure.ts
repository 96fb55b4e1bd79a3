import { SignerError } from '../gasSigner.ts'

/** Where a KMS call failed: at start (`GetPublicKey`, the key cannot be opened) or signing a tx. */
export type KmsCallSite = {
  phase: 'start' | 'sign'
  operation: 'GetPublicKey' | 'Sign'
  keyId: string
  region: string
  /** Removes the caller's credentials from a text the SDK or the service wrote. */
  redact: (text: string) => string
}

/** The SDK's and AWS's names for a throttled request (the SDK's own retry strategy retries these). */
const throttled = new Set(['ThrottlingException', 'Throttling', 'ThrottledException', 'TooManyRequestsException', 'RequestLimitExceeded', 'RequestThrottled', 'SlowDown'])
/** AWS refused the caller: no permission, unknown or expired credentials, a bad signature. */
const denied = new Set([
  'AccessDeniedException',
  'AccessDenied',
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'InvalidSignatureException',
  'IncompleteSignatureException',
  'MissingAuthenticationTokenException',
  'SignatureDoesNotMatch',
  'ExpiredTokenException',
  'ExpiredToken',
])
/** The key exists but is not a signing key for ECDSA_SHA_256. */
const wrongUsage = new Set(['InvalidKeyUsageException', 'KMSInvalidSigningAlgorithmException', 'UnsupportedOperationException'])
/** Network failures below the SDK (connection refused, reset, DNS). */
const networkCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EPIPE', 'ConnectionRefused', 'ConnectionClosed'])

/** What the SDK's error says: its name, message, attempts and network code. */
export function describeSdkError(error: unknown): { name: string; message: string; attempts: number | undefined; code: string | undefined } {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), attempts: undefined, code: undefined }
  const metadata = '$metadata' in error ? (error.$metadata as { attempts?: unknown } | undefined) : undefined
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined
  return { name: error.name, message: error.message, attempts: typeof metadata?.attempts === 'number' ? metadata.attempts : undefined, code }
}

const throttleFix =
  'raise the account\'s KMS request quota for ECC keys (Service Quotas: "Cryptographic operations (ECC) request rate") or lower RELAYER_SIGNER_CONCURRENCY; the relayer signs again as soon as KMS answers'

/**
 * The SignerError for a KMS call that did not end within `timeoutMs` (SIGNER_UNAVAILABLE):
 * throttling when the last failed attempt was throttled, else no answer in time.
 *
 * @example
 * throw kmsDeadlineFailure(site, ['ThrottlingException', 'ThrottlingException'], 10_000)
 */
export function kmsDeadlineFailure(site: KmsCallSite, attempts: readonly string[], timeoutMs: number): SignerError {
  const last = attempts.at(-1)
  const place = `KMS key ${site.keyId} in ${site.region}`
  if (last !== undefined && throttled.has(last)) {
    const waiting = site.phase === 'sign' ? '; new orders wait until KMS answers again' : ''
    const doing = site.phase === 'sign' ? 'signing' : 'GetPublicKey'
    return new SignerError('SIGNER_UNAVAILABLE', `KMS throttled ${doing} with ${place} (${last} on ${attempts.length} attempts within ${timeoutMs} ms)${waiting}`, { fix: throttleFix })
  }
  const waiting = site.phase === 'sign' ? '; new orders wait until it answers again' : ''
  const lastFailure = last ? ` (the last failed attempt: ${last})` : ''
  return new SignerError('SIGNER_UNAVAILABLE', `KMS did not answer ${site.operation} for ${place} within ${timeoutMs} ms${lastFailure}${waiting}`, {
    fix: 'check the network path to KMS (AWS_ENDPOINT_URL_KMS when set) and its latency; RELAYER_SIGNER_TIMEOUT_MS sets how long a signature may take',
  })
}

/**
 * The SignerError for a failed KMS call. At start, what only the operator can fix (a
 * disabled, missing or wrong key, refused or missing credentials, no region) is
 * SIGNER_CONFIG: the relayer does not start. While signing, the same failures are
 * SIGNER_UNAVAILABLE: nothing was signed, so new orders wait and the relayer signs again
 * as soon as the key is usable (re-enabled, permission restored) without a restart.
 * Throttling, timeouts, network and KMS-side failures are SIGNER_UNAVAILABLE in both.
 * The message names the key id and region, never a credential; `cause` is a plain Error
 * with the SDK error's name and redacted message (not the SDK error, which carries the
 * raw response).
 *
 * @example
 * throw kmsFailure(error, { phase: 'sign', operation: 'Sign', keyId, region, redact })
 */
export function kmsFailure(error: unknown, site: KmsCallSite): SignerError {
  const sdk = describeSdkError(error)
  const said = site.redact(sdk.message)
  const cause = Object.assign(new Error(`${sdk.name}: ${said}`), { name: sdk.name })
  const place = `KMS key ${site.keyId} in ${site.region}`
  const waiting = site.phase === 'sign' ? '; new orders wait until it answers again' : ''
  const operatorCode = site.phase === 'start' ? 'SIGNER_CONFIG' : 'SIGNER_UNAVAILABLE'
  const attempts = sdk.attempts && sdk.attempts > 1 ? ` after ${sdk.attempts} attempts` : ''

  if (throttled.has(sdk.name)) {
    const doing = site.phase === 'sign' ? 'signing' : 'GetPublicKey'
    const waitingForKms = site.phase === 'sign' ? '; new orders wait until KMS answers again' : ''
    return new SignerError('SIGNER_UNAVAILABLE', `KMS throttled ${doing} with ${place} (${sdk.name}${attempts})${waitingForKms}`, { fix: throttleFix, cause })
  }
  if (sdk.name === 'DisabledException') {
    return new SignerError(operatorCode, `${place} is disabled${site.phase === 'sign' ? '; new orders wait until it is enabled' : ''}`, {
      fix: `enable it (aws kms enable-key --key-id ${site.keyId} --region ${site.region}) or set RELAYER_KMS_KEY_ID to an enabled ECC_SECG_P256K1 key`,
      cause,
    })
  }
  if (sdk.name === 'KMSInvalidStateException') {
    return new SignerError(operatorCode, `${place} cannot be used in its state (${said})${waiting}`, {
      fix: `a key pending deletion: aws kms cancel-key-deletion --key-id ${site.keyId} --region ${site.region}, then aws kms enable-key; otherwise set RELAYER_KMS_KEY_ID to a usable key`,
      cause,
    })
  }
  if (sdk.name === 'NotFoundException' || sdk.name === 'InvalidArnException') {
    return new SignerError(operatorCode, `${place} was not found (${sdk.name}: ${said})${waiting}`, {
      fix: 'check RELAYER_KMS_KEY_ID and the region (AWS_REGION, the profile\'s region, or give the key as its ARN): the key must live in that region and account',
      cause,
    })
  }
  if (denied.has(sdk.name)) {
    return new SignerError(operatorCode, `AWS refused ${site.operation} on ${place} for the relayer's credentials (${sdk.name}: ${said})${waiting}`, {
      fix: 'allow kms:GetPublicKey and kms:Sign on the key to the relayer\'s IAM role or user, and check which credentials the AWS SDK finds (AWS_PROFILE, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, an instance, task or pod role)',
      cause,
    })
  }
  if (sdk.name === 'CredentialsProviderError') {
    return new SignerError(operatorCode, `no AWS credentials for ${place}: the AWS SDK's credential chain found none (${said})${waiting}`, {
      fix: 'set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run with an instance, task or pod role',
      cause,
    })
  }
  if (wrongUsage.has(sdk.name)) {
    return new SignerError(operatorCode, `${place} cannot sign with ECDSA_SHA_256 (${sdk.name}: ${said})${waiting}`, {
      fix: 'the gas key must be an asymmetric ECC_SECG_P256K1 key with key usage SIGN_VERIFY (aws kms create-key --key-spec ECC_SECG_P256K1 --key-usage SIGN_VERIFY)',
      cause,
    })
  }
  const network = sdk.code !== undefined && networkCodes.has(sdk.code) ? ` ${sdk.code}` : ''
  return new SignerError('SIGNER_UNAVAILABLE', `KMS did not answer ${site.operation} for ${place} (${sdk.name}${network}${attempts}: ${said})${waiting}`, {
    fix: 'check the network path to KMS (AWS_ENDPOINT_URL_KMS when set) and the AWS Health Dashboard; the relayer signs again as soon as KMS answers',
    cause,
  })
}
