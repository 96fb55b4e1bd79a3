import { GetPublicKeyCommand, type GetPublicKeyCommandOutput, KMSClient, SignCommand } from '@aws-sdk/client-kms'
import { type Address, type Hex, hexToBytes, isAddressEqual, keccak256, recoverTransactionAddress, serializeTransaction, toHex, type TransactionSerializableEIP1559 } from 'viem'
import { publicKeyToAddress } from 'viem/accounts'
import type { Logger } from '../../shared/logger.ts'
import { type GasSigner, SignerError } from '../gasSigner.ts'
import { ethSignatureFromDer } from './kmsSignature.ts'
import { callKms } from './callKms.ts'
import { describeSdkError } from './kmsFailure.ts'
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
  const site = { keyId, region, timeoutMs, client }

  let publicKey: GetPublicKeyCommandOutput
  try {
    const command = new GetPublicKeyCommand({ KeyId: keyId })
    publicKey = await callKms({ ...site, operation: 'GetPublicKey', phase: 'start' }, command, (abortSignal) => client.send(command, { abortSignal }))
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
    const answer = await callKms({ ...site, operation: 'Sign', phase: 'sign' }, command, (abortSignal) => client.send(command, { abortSignal }))
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
