import { randomUUID } from 'node:crypto'
import { p256 } from '@noble/curves/nist'
import { secp256k1 } from '@noble/curves/secp256k1'
import type { Server } from 'bun'

export type KmsKeySpec = 'ECC_SECG_P256K1' | 'ECC_NIST_P256'

export type KmsDoubleKey = {
  readonly keyId: string
  readonly arn: string
  readonly spec: KmsKeySpec
  /** The uncompressed public point (0x04 ‖ x ‖ y). */
  readonly publicKey: Uint8Array
  /** `Enabled`, `Disabled`, `PendingDeletion`: what GetPublicKey and Sign see. */
  readonly state: KmsKeyState
}

export type KmsKeyState = 'Enabled' | 'Disabled' | 'PendingDeletion'

export type KmsDoubleCall = { operation: string; keyId: string | undefined; authorization: string; status: number; errorType?: string }

export type KmsDouble = {
  readonly url: string
  readonly region: string
  /** Static test credentials for the SDK (the double accepts any). */
  readonly credentials: { accessKeyId: string; secretAccessKey: string }
  createKey(options: { spec: KmsKeySpec; enabled?: boolean }): KmsDoubleKey
  /** Sets a key's state (`Disabled`: DisabledException; `PendingDeletion`: KMSInvalidStateException). */
  setKeyState(keyId: string, state: KmsKeyState): void
  /** The next `count` requests answer `ThrottlingException`. */
  throttleNext(count: number): void
  /** Every request waits this long before it is answered (0: none). */
  delay(ms: number): void
  /** The next request answers this error instead (a `__type` and message, status 400 unless given). */
  failNext(error: { type: string; message: string; status?: number }): void
  /** The next Sign answers with a signature by another key (a faulty or tampered service). */
  signWithOtherKeyNext(): void
  /** Every request received, in order. */
  readonly calls: readonly KmsDoubleCall[]
  /** How many Sign answers carried a high-s signature. */
  readonly highSSignatures: number
  stop(): Promise<void>
}

const secp256k1Spki = Uint8Array.from([0x30, 0x56, 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a, 0x03, 0x42, 0x00])
const p256Spki = Uint8Array.from([
  0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
])
const accountId = '111122223333'

type HeldKey = { keyId: string; arn: string; spec: KmsKeySpec; publicKey: Uint8Array; privateKey: Uint8Array; state: KmsKeyState }

/**
 * A local double of the AWS KMS API for tests: the two operations the KMS gas signer uses
 * (`GetPublicKey`, `Sign`), spoken as the AWS SDK speaks them (AWS JSON 1.1: `POST /`,
 * `X-Amz-Target: TrentService.<Operation>`, blobs as base64, errors as
 * `{"__type": "<Name>", "message": …}` with status 400). It holds real keys (secp256k1 or
 * P-256, from @noble/curves), answers with a real DER SubjectPublicKeyInfo and real DER
 * ECDSA signatures over the digest it is given, and can be told to throttle, to delay, to
 * answer with an error, or to disable a key. A request must carry an `Authorization`
 * header (SigV4) whose credential scope names the `kms` service; the signature itself is
 * not verified.
 *
 * Half its secp256k1 signatures are high-s (KMS does not normalise s), so a signer that
 * forgets the low-s rule is caught.
 *
 * @example
 * const kms = startKmsDouble()
 * const key = kms.createKey({ spec: 'ECC_SECG_P256K1' })
 * const client = new KMSClient({ endpoint: kms.url, region: kms.region, credentials: kms.credentials })
 */
export function startKmsDouble(): KmsDouble {
  const region = 'eu-west-1'
  const keys = new Map<string, HeldKey>()
  const calls: KmsDoubleCall[] = []
  let throttles = 0
  let delayMs = 0
  let nextFailure: { type: string; message: string; status?: number } | undefined
  let highS = 0
  let otherKeyNext = false
  let flip = false

  const lookup = (keyId: unknown): HeldKey | undefined => {
    if (typeof keyId !== 'string') return undefined
    return keys.get(keyId) ?? [...keys.values()].find((key) => key.arn === keyId)
  }

  const answer = (call: KmsDoubleCall, status: number, body: unknown): Response => {
    call.status = status
    if (status !== 200 && typeof body === 'object' && body !== null && '__type' in body) call.errorType = String(body.__type)
    calls.push(call)
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() } })
  }
  const error = (call: KmsDoubleCall, type: string, message: string, status = 400) => answer(call, status, { __type: type, message })

  const usable = (call: KmsDoubleCall, key: HeldKey | undefined, requested: unknown): Response | HeldKey => {
    if (!key) return error(call, 'NotFoundException', `Key '${String(requested)}' does not exist`)
    if (key.state === 'Disabled') return error(call, 'DisabledException', `${key.arn} is disabled.`)
    if (key.state === 'PendingDeletion') return error(call, 'KMSInvalidStateException', `${key.arn} is pending deletion.`)
    return key
  }

  const server: Server<undefined> = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      // The answer is decided when the request arrives and sent after the delay, so a request
      // its client gave up on cannot take a throttle or a failure meant for a later one.
      const response = await respond(request)
      if (delayMs > 0) await Bun.sleep(delayMs)
      return response
    },
  })

  async function respond(request: Request): Promise<Response> {
    {
      const target = request.headers.get('x-amz-target') ?? ''
      const operation = target.replace(/^TrentService\./, '')
      const authorization = request.headers.get('authorization') ?? ''
      const raw = await request.text()
      let body: Record<string, unknown> = {}
      try {
        body = JSON.parse(raw || '{}') as Record<string, unknown>
      } catch {
        // An unparsable body is answered below as a SerializationException.
      }
      const call: KmsDoubleCall = { operation, keyId: typeof body.KeyId === 'string' ? body.KeyId : undefined, authorization, status: 0 }
      if (request.method !== 'POST' || !target.startsWith('TrentService.')) return error(call, 'UnknownOperationException', `unknown target ${target}`)
      if (request.headers.get('content-type') !== 'application/x-amz-json-1.1') return error(call, 'SerializationException', 'wrong content type')
      if (!/^AWS4-HMAC-SHA256 Credential=[^/]+\/\d{8}\/[a-z0-9-]+\/kms\/aws4_request, SignedHeaders=[^,]+, Signature=[0-9a-f]{64}$/.test(authorization)) {
        return error(call, 'MissingAuthenticationTokenException', 'Missing Authentication Token')
      }
      if (raw && Object.keys(body).length === 0) return error(call, 'SerializationException', 'body is not JSON')
      if (throttles > 0) {
        throttles--
        return error(call, 'ThrottlingException', 'Rate exceeded')
      }
      if (nextFailure) {
        const failure = nextFailure
        nextFailure = undefined
        return error(call, failure.type, failure.message, failure.status)
      }
      const found = usable(call, lookup(body.KeyId), body.KeyId)
      if (found instanceof Response) return found
      const key = found
      if (operation === 'GetPublicKey') {
        const prefix = key.spec === 'ECC_SECG_P256K1' ? secp256k1Spki : p256Spki
        return answer(call, 200, {
          KeyId: key.arn,
          KeySpec: key.spec,
          CustomerMasterKeySpec: key.spec,
          KeyUsage: 'SIGN_VERIFY',
          PublicKey: Buffer.concat([prefix, key.publicKey]).toString('base64'),
          SigningAlgorithms: ['ECDSA_SHA_256'],
        })
      }
      if (operation === 'Sign') {
        if (body.SigningAlgorithm !== 'ECDSA_SHA_256') return error(call, 'KMSInvalidSigningAlgorithmException', `${String(body.SigningAlgorithm)} is not valid for ${key.arn}`)
        if (body.MessageType !== 'DIGEST') return error(call, 'ValidationException', 'this double signs digests only')
        const digest = typeof body.Message === 'string' ? Buffer.from(body.Message, 'base64') : Buffer.alloc(0)
        if (digest.length !== 32) return error(call, 'ValidationException', 'Digest is invalid length for algorithm ECDSA_SHA_256.')
        const curve = key.spec === 'ECC_SECG_P256K1' ? secp256k1 : p256
        const signingKey = otherKeyNext ? curve.utils.randomPrivateKey() : key.privateKey
        otherKeyNext = false
        const low = curve.sign(digest, signingKey, { lowS: true, extraEntropy: true })
        // Every other signature is sent as its high-s twin (n − s), which verifies just as well.
        flip = !flip
        const signature = flip ? new curve.Signature(low.r, curve.CURVE.n - low.s) : low
        if (flip) highS++
        return answer(call, 200, { KeyId: key.arn, Signature: Buffer.from(signature.toDERRawBytes()).toString('base64'), SigningAlgorithm: 'ECDSA_SHA_256' })
      }
      return error(call, 'UnknownOperationException', `the double does not answer ${operation}`)
    }
  }

  return {
    url: `http://127.0.0.1:${server.port}`,
    region,
    credentials: { accessKeyId: 'AKIAKMSDOUBLETEST000', secretAccessKey: 'kms-double-secret-0123456789abcdefghijklmnop' },
    createKey({ spec, enabled = true }) {
      const keyId = randomUUID()
      const privateKey = spec === 'ECC_SECG_P256K1' ? secp256k1.utils.randomPrivateKey() : p256.utils.randomPrivateKey()
      const publicKey = spec === 'ECC_SECG_P256K1' ? secp256k1.getPublicKey(privateKey, false) : p256.getPublicKey(privateKey, false)
      const key: HeldKey = {
        keyId,
        arn: `arn:aws:kms:${region}:${accountId}:key/${keyId}`,
        spec,
        publicKey,
        privateKey,
        state: enabled ? 'Enabled' : 'Disabled',
      }
      keys.set(keyId, key)
      return {
        keyId,
        arn: key.arn,
        spec,
        publicKey,
        get state() {
          return key.state
        },
      }
    },
    setKeyState(keyId, state) {
      const key = lookup(keyId)
      if (!key) throw new Error(`kms double: no key ${keyId}`)
      key.state = state
    },
    throttleNext(count) {
      throttles = count
    },
    delay(ms) {
      delayMs = ms
    },
    failNext(failure) {
      nextFailure = failure
    },
    signWithOtherKeyNext() {
      otherKeyNext = true
    },
    get calls() {
      return calls
    },
    get highSSignatures() {
      return highS
    },
    stop: () => server.stop(true),
  }
}
