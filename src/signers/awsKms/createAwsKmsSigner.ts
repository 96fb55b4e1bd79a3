import { GetPublicKeyCommand, type GetPublicKeyCommandOutput, KMSClient, SignCommand } from '@aws-sdk/client-kms'
import { type Address, type Hex, hexToBytes, isAddressEqual, keccak256, recoverTransactionAddress, serializeTransaction, toHex, type TransactionSerializableEIP1559 } from 'viem'
import { publicKeyToAddress } from 'viem/accounts'
import type { Logger } from '../../shared/logger.ts'
import { type GasSigner, SignerError } from '../gasSigner.ts'
import { ethSignatureFromDer } from './kmsSignature.ts'
import { describeSdkError, isThrottle, kmsFailure } from './kmsFailure.ts'
import { regionOfKeyArn } from './keyIdFormat.ts'
import { secp256k1PointFromSpki } from './spkiPublicKey.ts'

export type AwsKmsSignerOptions = {
  /** RELAYER_KMS_KEY_ID: a key id, a key ARN, an alias (`alias/name`) or an alias ARN. */
  keyId: string
  /**
   * The KMS client to use (tests pass one with an endpoint of their own). Without it, one is
   * made from the AWS SDK's standard chain (AWS_REGION, AWS_PROFILE, AWS_ACCESS_KEY_ID…,
   * AWS_ENDPOINT_URL_KMS), in the key ARN's region when the key is given as an ARN, with
   * `maxAttempts` attempts per call.
   */
  client?: KMSClient
  /** The longest one GetPublicKey or Sign may take, the SDK's retries included. */
  timeoutMs: number
  /** Attempts per call of the client made here (the SDK's standard retry strategy; default 4). */
  maxAttempts?: number
  /** Says when a signature succeeded only after KMS throttled it. */
  logger?: Logger
}

/** Attempts per KMS call of a client made here: three retries fit the throttling back-off (0.5, 1, 2 s at most) in the default 10 s. */
const defaultMaxAttempts = 4

/**
 * The gas key in AWS KMS (RELAYER_KMS_KEY_ID): an asymmetric ECC_SECG_P256K1 key with key
 * usage SIGN_VERIFY whose private half never leaves KMS. At start `GetPublicKey` checks
 * the key's spec and usage and derives the address from its public key; each tx is then
 * serialized unsigned, hashed (keccak256) and the digest signed with `Sign` (ECDSA_SHA_256,
 * MessageType DIGEST); the DER answer becomes r and low s, the recovery id is the one that
 * recovers the key's address, and the signed tx is recovered once more before it is
 * returned. The key is pinned to the ARN GetPublicKey answered with, so an alias moved to
 * another key while the relayer runs cannot make it sign with that key.
 *
 * A failed Sign leaves nothing behind: no state is kept between signatures, so the same tx
 * can be signed again. Errors are SignerErrors (kmsFailure.ts says which code when).
 *
 * @example
 * const signer = await createAwsKmsSigner({ keyId: 'alias/relayer-gas', timeoutMs: 10_000 })
 * signer.description // 'aws-kms alias/relayer-gas in eu-west-1 (0x…)'
 */
export async function createAwsKmsSigner(options: AwsKmsSignerOptions): Promise<GasSigner> {
  const { keyId, timeoutMs } = options
  const ownClient = options.client === undefined
  const client =
    options.client ??
    new KMSClient({
      ...(regionOfKeyArn(keyId) ? { region: regionOfKeyArn(keyId) } : {}),
      maxAttempts: options.maxAttempts ?? defaultMaxAttempts,
      requestHandler: { requestTimeout: timeoutMs, connectionTimeout: Math.min(timeoutMs, 5_000) },
    })
  const fail = (error: unknown): never => {
    if (ownClient) client.destroy()
    throw error
  }

  let region: string
  try {
    region = await client.config.region()
  } catch (error) {
    return fail(
      new SignerError('SIGNER_CONFIG', `no AWS region for KMS key ${keyId}: ${describeSdkError(error).message}`, {
        fix: "set AWS_REGION (or a region in the AWS profile), or give RELAYER_KMS_KEY_ID as the key's ARN",
      }),
    )
  }
  const redact = credentialRedactor(client)
  /**
   * Sends one command within `timeoutMs`, its retries included. Each failed attempt's error
   * name is noted (a middleware inside the SDK's retry loop), so a deadline that ends a run
   * of throttled attempts is reported as throttling.
   */
  const call = async <output>(operation: 'GetPublicKey' | 'Sign', phase: 'start' | 'sign', command: AttemptWatchable, send: (abortSignal: AbortSignal) => Promise<output>): Promise<output> => {
    const attempts: string[] = []
    command.middlewareStack.add(
      (next) => async (args) => {
        try {
          return await next(args)
        } catch (error) {
          attempts.push(describeSdkError(error).name)
          throw error
        }
      },
      { step: 'finalizeRequest', priority: 'low', name: 'orderRelayAttemptLog' },
    )
    try {
      return await withDeadline(timeoutMs, send)
    } catch (error) {
      if (error instanceof DeadlineError) {
        const last = attempts.at(-1)
        const place = `KMS key ${keyId} in ${region}`
        const waiting = phase === 'sign' ? '; new orders wait until it answers again' : ''
        if (last !== undefined && isThrottle(last)) {
          throw new SignerError('SIGNER_UNAVAILABLE', `KMS throttled ${phase === 'sign' ? 'signing' : 'GetPublicKey'} with ${place} (${last} on ${attempts.length} attempts within ${timeoutMs} ms)${phase === 'sign' ? '; new orders wait until KMS answers again' : ''}`, {
            fix: 'raise the account\'s KMS request quota for ECC keys (Service Quotas: "Cryptographic operations (ECC) request rate") or lower RELAYER_SIGNER_CONCURRENCY; the relayer signs again as soon as KMS answers',
          })
        }
        throw new SignerError('SIGNER_UNAVAILABLE', `KMS did not answer ${operation} for ${place} within ${timeoutMs} ms${last ? ` (the last failed attempt: ${last})` : ''}${waiting}`, {
          fix: 'check the network path to KMS (AWS_ENDPOINT_URL_KMS when set) and its latency; RELAYER_SIGNER_TIMEOUT_MS sets how long a signature may take',
        })
      }
      throw kmsFailure(error, { phase, operation, keyId, region, redact: await redact() })
    }
  }

  let publicKey: GetPublicKeyCommandOutput
  try {
    const command = new GetPublicKeyCommand({ KeyId: keyId })
    publicKey = await call('GetPublicKey', 'start', command, (abortSignal) => client.send(command, { abortSignal }))
  } catch (error) {
    return fail(error)
  }
  const spec = publicKey.KeySpec
  if (spec !== 'ECC_SECG_P256K1') {
    return fail(
      new SignerError('SIGNER_CONFIG', `key ${keyId} is ${spec ?? 'of no key spec'}; the gas key must be an ECC_SECG_P256K1 key (Ethereum's secp256k1 curve) with key usage SIGN_VERIFY`, {
        fix: `create one (aws kms create-key --key-spec ECC_SECG_P256K1 --key-usage SIGN_VERIFY --region ${region}) and set RELAYER_KMS_KEY_ID to its id or alias`,
      }),
    )
  }
  if (publicKey.KeyUsage !== 'SIGN_VERIFY' || (publicKey.SigningAlgorithms && !publicKey.SigningAlgorithms.includes('ECDSA_SHA_256'))) {
    return fail(
      new SignerError('SIGNER_CONFIG', `key ${keyId} has key usage ${publicKey.KeyUsage ?? 'none'}; the gas key must be a SIGN_VERIFY key that signs with ECDSA_SHA_256`, {
        fix: `create one (aws kms create-key --key-spec ECC_SECG_P256K1 --key-usage SIGN_VERIFY --region ${region}) and set RELAYER_KMS_KEY_ID to it`,
      }),
    )
  }
  let address: Address
  try {
    address = publicKeyToAddress(toHex(secp256k1PointFromSpki(publicKey.PublicKey ?? new Uint8Array())))
  } catch (error) {
    return fail(new SignerError('SIGNER_FAULT', `KMS answered GetPublicKey for key ${keyId} in ${region} with a public key that cannot be read: ${describeSdkError(error).message}`, { cause: error }))
  }
  // Sign with the key GetPublicKey described (its ARN), not with whatever an alias names later.
  const signingKeyId = publicKey.KeyId ?? keyId

  async function signTransaction(tx: TransactionSerializableEIP1559): Promise<Hex> {
    const { r: _r, s: _s, v: _v, yParity: _yParity, ...unsigned } = tx
    let digest: Uint8Array
    try {
      digest = hexToBytes(keccak256(serializeTransaction(unsigned)))
    } catch (error) {
      // The relayer asked for a tx viem cannot serialize: nothing to ask KMS for.
      throw new SignerError('SIGNER_FAULT', `the tx for KMS key ${keyId} cannot be serialized: ${describeSdkError(error).message.split('\n')[0]}`, { cause: error })
    }
    const command = new SignCommand({ KeyId: signingKeyId, Message: digest, MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' })
    const answer = await call('Sign', 'sign', command, (abortSignal) => client.send(command, { abortSignal }))
    if (answer.$metadata.attempts && answer.$metadata.attempts > 1) {
      options.logger?.warn(`KMS key ${keyId} in ${region}: a signature took ${answer.$metadata.attempts} attempts (${answer.$metadata.totalRetryDelay ?? 0} ms of retry delay); KMS throttled or failed the others`)
    }
    let signed: Hex
    try {
      signed = serializeTransaction(unsigned, ethSignatureFromDer(answer.Signature ?? new Uint8Array(), digest, address))
    } catch (error) {
      throw new SignerError('SIGNER_FAULT', `KMS key ${keyId} in ${region} answered Sign with a signature that is not ${address}'s over the tx: ${describeSdkError(error).message}; nothing was sent`, {
        fix: 'check that RELAYER_KMS_KEY_ID names the key the relayer started with; restart the relayer to read the key again',
        cause: error,
      })
    }
    const sender = await recoverTransactionAddress({ serializedTransaction: signed as `0x02${string}` })
    if (!isAddressEqual(sender, address)) {
      throw new SignerError('SIGNER_FAULT', `the tx signed with KMS key ${keyId} recovers to ${sender}, not ${address}; nothing was sent`)
    }
    return signed
  }

  return {
    kind: 'aws-kms',
    address,
    description: `aws-kms ${keyId} in ${region} (${address})`,
    signTransaction,
    async close() {
      if (ownClient) client.destroy()
    },
  }
}

class DeadlineError extends Error {}

/** A command whose middleware stack takes the attempt log: the part of the SDK's stack both commands share. */
type AttemptWatchable = {
  middlewareStack: {
    add(middleware: (next: (args: never) => Promise<unknown>) => (args: never) => Promise<unknown>, options: { step: 'finalizeRequest'; priority: 'low'; name: string }): void
  }
}

/** Runs `send` with an AbortSignal that fires after `ms`; rejects with a DeadlineError then, whether or not the SDK honours the signal. */
async function withDeadline<output>(ms: number, send: (abortSignal: AbortSignal) => Promise<output>): Promise<output> {
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new DeadlineError())
      controller.abort()
    }, ms)
  })
  try {
    return await Promise.race([send(controller.signal), deadline])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * A function that returns a redactor of the credentials the client signs with: every
 * place the access key id, secret key or session token appears in a text becomes
 * `[redacted]`. The credentials are read from the client when a failure is described
 * (they may have rotated), and never kept.
 */
function credentialRedactor(client: KMSClient): () => Promise<(text: string) => string> {
  return async () => {
    let secrets: string[] = []
    try {
      const credentials = await client.config.credentials()
      secrets = [credentials.accessKeyId, credentials.secretAccessKey, credentials.sessionToken].filter((value): value is string => typeof value === 'string' && value.length >= 4)
    } catch {
      // No credentials could be read: there are none to leak.
    }
    return (text: string) => secrets.reduce((redacted, secret) => redacted.split(secret).join('[redacted]'), text)
  }
}
