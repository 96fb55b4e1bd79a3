import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KMSClient } from '@aws-sdk/client-kms'
import { p256 } from '@noble/curves/nist'
import { secp256k1 } from '@noble/curves/secp256k1'
import {
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  hexToBytes,
  http,
  keccak256,
  numberToHex,
  parseTransaction,
  recoverTransactionAddress,
  toHex,
  type TransactionSerializableEIP1559,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount, publicKeyToAddress } from 'viem/accounts'
import { foundry } from 'viem/chains'
import { anvilInstance, devnetAccounts, findAnvil } from '../../src/devnet/index.ts'
import { createMemoryLogger, freePort } from '../../src/shared/index.ts'
import { SignerError } from '../../src/signers/gasSigner.ts'
import { createAwsKmsSigner, readAwsKmsOptions, regionOfKeyArn } from '../../src/signers/awsKms/index.ts'
import { ethSignatureFromDer } from '../../src/signers/awsKms/kmsSignature.ts'
import { secp256k1PointFromSpki } from '../../src/signers/awsKms/spkiPublicKey.ts'
import { type KmsDouble, type KmsDoubleKey, startKmsDouble } from '../helpers/kmsDouble.ts'

// The KMS gas signer with the real AWS SDK (KMSClient: SigV4, AWS JSON 1.1, its standard
// retry strategy) against a local double of the KMS API that holds real keys; signed txs
// are checked by recovery and one is mined on anvil.
let kms: KmsDouble
let key: KmsDoubleKey
let anvil: ReturnType<typeof anvilInstance>
let rpcUrl: string
/** Every SignerError the tests saw, checked at the end for the secret access key. */
const seenErrors: SignerError[] = []

const chainId = 31337
const halfOrder = secp256k1.CURVE.n / 2n

function kmsClient(maxAttempts = 3): KMSClient {
  return new KMSClient({ endpoint: kms.url, region: kms.region, credentials: kms.credentials, maxAttempts })
}

function transfer(nonce: number, overrides: Partial<TransactionSerializableEIP1559> = {}): TransactionSerializableEIP1559 {
  return {
    type: 'eip1559',
    chainId,
    nonce,
    to: devnetAccounts.payee.address,
    value: 1_000_000_000_000_000n + BigInt(nonce),
    gas: 21_000n,
    maxFeePerGas: 30_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    data: '0x',
    ...overrides,
  }
}

/** The SignerError `promise` rejects with (a test fails if it resolves or rejects with something else). */
async function signerError(promise: Promise<unknown>): Promise<SignerError> {
  try {
    await promise
  } catch (error) {
    if (!(error instanceof SignerError)) throw error
    seenErrors.push(error)
    return error
  }
  throw new Error('expected a SignerError, got a result')
}

beforeAll(async () => {
  kms = startKmsDouble()
  key = kms.createKey({ spec: 'ECC_SECG_P256K1' })
  const port = await freePort()
  anvil = anvilInstance({ binary: findAnvil(), chainId, port, host: '127.0.0.1' })
  await anvil.start()
  rpcUrl = `http://127.0.0.1:${port}`
})

afterAll(async () => {
  await anvil?.stop()
  await kms?.stop()
})

describe('the KMS key at start', () => {
  test('the address is derived from GetPublicKey; the description names key, region and address', async () => {
    const signer = await createAwsKmsSigner({ keyId: key.keyId, client: kmsClient(), timeoutMs: 5_000 })
    const expected = publicKeyToAddress(toHex(key.publicKey))
    expect(signer.address).toBe(expected)
    expect(signer.kind).toBe('aws-kms')
    expect(signer.description).toBe(`aws-kms ${key.keyId} in eu-west-1 (${expected})`)
    expect(signer.takePrivateKey).toBeUndefined()
    // The SDK signed the request (SigV4) for KMS in the client's region.
    const call = kms.calls.at(-1)
    expect(call?.operation).toBe('GetPublicKey')
    expect(call?.authorization).toStartWith(`AWS4-HMAC-SHA256 Credential=${kms.credentials.accessKeyId}/`)
    expect(call?.authorization).toContain('/eu-west-1/kms/aws4_request')
  })

  test('a disabled key stops the start with SIGNER_CONFIG and the command that enables it', async () => {
    const disabled = kms.createKey({ spec: 'ECC_SECG_P256K1', enabled: false })
    const error = await signerError(createAwsKmsSigner({ keyId: disabled.keyId, client: kmsClient(), timeoutMs: 5_000 }))
    expect(error.code).toBe('SIGNER_CONFIG')
    expect(error.exitCode).toBe(2)
    expect(error.message).toBe(`KMS key ${disabled.keyId} in eu-west-1 is disabled`)
    expect(error.fix).toBe(
      `enable it (aws kms enable-key --key-id ${disabled.keyId} --region eu-west-1) or set RELAYER_KMS_KEY_ID to an enabled ECC_SECG_P256K1 key`,
    )
  })

  test('a key pending deletion stops the start with SIGNER_CONFIG', async () => {
    const doomed = kms.createKey({ spec: 'ECC_SECG_P256K1' })
    kms.setKeyState(doomed.keyId, 'PendingDeletion')
    const error = await signerError(createAwsKmsSigner({ keyId: doomed.keyId, client: kmsClient(), timeoutMs: 5_000 }))
    expect(error.code).toBe('SIGNER_CONFIG')
    expect(error.message).toBe(`KMS key ${doomed.keyId} in eu-west-1 cannot be used in its state (${doomed.arn} is pending deletion.)`)
    expect(error.fix).toStartWith(`a key pending deletion: aws kms cancel-key-deletion --key-id ${doomed.keyId} --region eu-west-1`)
  })

  test('a key of another spec (ECC_NIST_P256) stops the start with SIGNER_CONFIG', async () => {
    const nist = kms.createKey({ spec: 'ECC_NIST_P256' })
    const error = await signerError(createAwsKmsSigner({ keyId: nist.keyId, client: kmsClient(), timeoutMs: 5_000 }))
    expect(error.code).toBe('SIGNER_CONFIG')
    expect(error.message).toBe(
      `key ${nist.keyId} is ECC_NIST_P256; the gas key must be an ECC_SECG_P256K1 key (Ethereum's secp256k1 curve) with key usage SIGN_VERIFY`,
    )
    expect(error.fix).toBe(
      'create one (aws kms create-key --key-spec ECC_SECG_P256K1 --key-usage SIGN_VERIFY --region eu-west-1) and set RELAYER_KMS_KEY_ID to its id or alias',
    )
  })

  test('a key that does not exist, and credentials AWS refuses, stop the start with SIGNER_CONFIG', async () => {
    const missing = '1234abcd-12ab-34cd-56ef-1234567890ab'
    const notFound = await signerError(createAwsKmsSigner({ keyId: missing, client: kmsClient(), timeoutMs: 5_000 }))
    expect(notFound.code).toBe('SIGNER_CONFIG')
    expect(notFound.message).toBe(`KMS key ${missing} in eu-west-1 was not found (NotFoundException: Key '${missing}' does not exist)`)

    kms.failNext({ type: 'AccessDeniedException', message: 'User: arn:aws:iam::111122223333:user/relayer is not authorized to perform: kms:GetPublicKey' })
    const denied = await signerError(createAwsKmsSigner({ keyId: key.keyId, client: kmsClient(), timeoutMs: 5_000 }))
    expect(denied.code).toBe('SIGNER_CONFIG')
    expect(denied.message).toBe(
      `AWS refused GetPublicKey on KMS key ${key.keyId} in eu-west-1 for the relayer's credentials (AccessDeniedException: User: arn:aws:iam::111122223333:user/relayer is not authorized to perform: kms:GetPublicKey)`,
    )
    expect(denied.fix).toStartWith("allow kms:GetPublicKey and kms:Sign on the key to the relayer's IAM role or user")
  })

  test('no credentials and no region stop the start with SIGNER_CONFIG', async () => {
    const noCredentials = new KMSClient({
      endpoint: kms.url,
      region: kms.region,
      credentials: async () => {
        throw Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' })
      },
    })
    const credentials = await signerError(createAwsKmsSigner({ keyId: key.keyId, client: noCredentials, timeoutMs: 5_000 }))
    expect(credentials.code).toBe('SIGNER_CONFIG')
    expect(credentials.message).toBe(
      `no AWS credentials for KMS key ${key.keyId} in eu-west-1: the AWS SDK's credential chain found none (Could not load credentials from any providers)`,
    )

    const noRegion = new KMSClient({
      endpoint: kms.url,
      credentials: kms.credentials,
      region: async () => {
        throw new Error('Region is missing')
      },
    })
    const region = await signerError(createAwsKmsSigner({ keyId: key.keyId, client: noRegion, timeoutMs: 5_000 }))
    expect(region.code).toBe('SIGNER_CONFIG')
    expect(region.message).toBe(`no AWS region for KMS key ${key.keyId}: Region is missing`)
    expect(region.fix).toBe("set AWS_REGION (or a region in the AWS profile), or give RELAYER_KMS_KEY_ID as the key's ARN")
  })

  test('a KMS that does not answer in time is SIGNER_UNAVAILABLE, not a configuration error', async () => {
    kms.delay(3_000)
    try {
      const started = Date.now()
      const error = await signerError(createAwsKmsSigner({ keyId: key.keyId, client: kmsClient(1), timeoutMs: 300 }))
      expect(Date.now() - started).toBeLessThan(2_000)
      expect(error.code).toBe('SIGNER_UNAVAILABLE')
      expect(error.exitCode).toBe(1)
      expect(error.message).toBe(`KMS did not answer GetPublicKey for KMS key ${key.keyId} in eu-west-1 within 300 ms`)
    } finally {
      kms.delay(0)
    }
  })
})

describe('signing', () => {
  test('signed txs recover to the key, carry low s and exactly the fields asked, as a local account signs them', async () => {
    const signer = await createAwsKmsSigner({ keyId: key.arn, client: kmsClient(), timeoutMs: 5_000 })
    const local = privateKeyToAccount(generatePrivateKey())
    const highSBefore = kms.highSSignatures
    for (let nonce = 0; nonce < 8; nonce++) {
      const tx = transfer(nonce, { data: nonce % 2 ? '0xdeadbeef' : '0x', accessList: nonce === 3 ? [{ address: devnetAccounts.spare.address, storageKeys: [] }] : [] })
      const signed = await signer.signTransaction(tx)
      expect(await recoverTransactionAddress({ serializedTransaction: signed as `0x02${string}` })).toBe(signer.address)
      const parsed = parseTransaction(signed)
      expect(BigInt(parsed.s ?? '0x0') <= halfOrder).toBe(true)
      expect([0, 1]).toContain(parsed.yParity ?? -1)
      // The same tx signed by a local viem account: every field but the signature is the same.
      const { r: _r, s: _s, v: _v, yParity: _y, ...fields } = parsed
      const { r: _lr, s: _ls, v: _lv, yParity: _ly, ...localFields } = parseTransaction(await local.signTransaction(tx))
      expect(fields).toEqual(localFields)
      expect(fields.nonce).toBe(nonce)
      expect(fields.chainId).toBe(chainId)
      expect(fields.value).toBe(tx.value ?? 0n)
    }
    // Half the double's signatures were high-s: each was normalised above.
    expect(kms.highSSignatures - highSBefore).toBe(4)
    const signs = kms.calls.filter((call) => call.operation === 'Sign').slice(-8)
    // Signed with the key GetPublicKey named (its ARN), as a digest.
    expect(signs.map((call) => call.keyId)).toEqual(Array(8).fill(key.arn))
  })

  test('a KMS-signed tx mines on anvil', async () => {
    const signer = await createAwsKmsSigner({ keyId: key.keyId, client: kmsClient(), timeoutMs: 5_000 })
    const chain = { ...foundry, id: chainId, rpcUrls: { default: { http: [rpcUrl] } } }
    const client = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 50 })
    const funder = createWalletClient({ chain, transport: http(rpcUrl), account: privateKeyToAccount(devnetAccounts.deployer.privateKey) })
    const funding = await funder.sendTransaction({ to: signer.address, value: 10n ** 18n })
    expect((await client.waitForTransactionReceipt({ hash: funding, timeout: 30_000 })).status).toBe('success')

    const recipient: Address = privateKeyToAccount(generatePrivateKey()).address
    const block = await client.getBlock()
    const maxFeePerGas = (block.baseFeePerGas ?? 0n) * 2n + 1_000_000_000n
    const signed = await signer.signTransaction(transfer(0, { to: recipient, value: 12_345n, maxFeePerGas, maxPriorityFeePerGas: 1_000_000_000n }))
    const hash = await client.sendRawTransaction({ serializedTransaction: signed })
    const receipt = await client.waitForTransactionReceipt({ hash, timeout: 30_000 })
    expect(receipt.status).toBe('success')
    expect(receipt.from).toBe(signer.address.toLowerCase() as Hex)
    expect(await client.getBalance({ address: recipient })).toBe(12_345n)
    expect(await client.getTransactionCount({ address: signer.address })).toBe(1)
  })

  test('a signature by another key is SIGNER_FAULT and nothing is returned to send', async () => {
    const signer = await createAwsKmsSigner({ keyId: key.keyId, client: kmsClient(), timeoutMs: 5_000 })
    kms.signWithOtherKeyNext()
    const error = await signerError(signer.signTransaction(transfer(1)))
    expect(error.code).toBe('SIGNER_FAULT')
    expect(error.message).toBe(
      `KMS key ${key.keyId} in eu-west-1 answered Sign with a signature that is not ${signer.address}'s over the tx: the signature does not recover to ${signer.address} with either recovery id; nothing was sent`,
    )
    // Nothing is left half-done: the same tx signs at the next call.
    expect(await recoverTransactionAddress({ serializedTransaction: (await signer.signTransaction(transfer(1))) as `0x02${string}` })).toBe(signer.address)
  })

  test('a tx viem cannot serialize is SIGNER_FAULT and KMS is not asked', async () => {
    const signer = await createAwsKmsSigner({ keyId: key.keyId, client: kmsClient(), timeoutMs: 5_000 })
    const before = kms.calls.length
    const error = await signerError(signer.signTransaction(transfer(7, { to: '0x1234' })))
    expect(error.code).toBe('SIGNER_FAULT')
    expect(error.message).toBe(`the tx for KMS key ${key.keyId} cannot be serialized: Address "0x1234" is invalid.`)
    expect(kms.calls.length).toBe(before)
  })
})

describe('KMS failing while signing', () => {
  test('throttled twice, the SDK retries and the signature arrives; the retries are logged', async () => {
    const logger = createMemoryLogger()
    const signer = await createAwsKmsSigner({ keyId: key.keyId, client: kmsClient(3), timeoutMs: 10_000, logger })
    const before = kms.calls.length
    kms.throttleNext(2)
    const signed = await signer.signTransaction(transfer(2))
    expect(await recoverTransactionAddress({ serializedTransaction: signed as `0x02${string}` })).toBe(signer.address)
    expect(kms.calls.slice(before).map((call) => `${call.operation} ${call.status} ${call.errorType ?? ''}`)).toEqual([
      'Sign 400 ThrottlingException',
      'Sign 400 ThrottlingException',
      'Sign 200 ',
    ])
    expect(logger.lines).toHaveLength(1)
    expect(logger.lines[0]).toMatch(new RegExp(`^warn: KMS key ${key.keyId} in eu-west-1: a signature took 3 attempts \\(\\d+ ms of retry delay\\); KMS throttled or failed the others$`))
  })

  test('throttled past the retries is SIGNER_UNAVAILABLE; the same tx signs once KMS answers', async () => {
    const signer = await createAwsKmsSigner({ keyId: key.keyId, client: kmsClient(3), timeoutMs: 10_000 })
    kms.throttleNext(3)
    const error = await signerError(signer.signTransaction(transfer(3)))
    expect(error.code).toBe('SIGNER_UNAVAILABLE')
    expect(error.message).toBe(
      `KMS throttled signing with KMS key ${key.keyId} in eu-west-1 (ThrottlingException after 3 attempts); new orders wait until KMS answers again`,
    )
    expect(error.fix).toStartWith("raise the account's KMS request quota for ECC keys")
    const signed = await signer.signTransaction(transfer(3))
    expect(parseTransaction(signed).nonce).toBe(3)
  })

  test('throttled until the deadline is reported as throttling, within the deadline', async () => {
    const signer = await createAwsKmsSigner({ keyId: key.keyId, client: kmsClient(10), timeoutMs: 1_200 })
    kms.throttleNext(1_000)
    try {
      const started = Date.now()
      const error = await signerError(signer.signTransaction(transfer(4)))
      expect(Date.now() - started).toBeLessThan(2_500)
      expect(error.code).toBe('SIGNER_UNAVAILABLE')
      expect(error.message).toMatch(
        new RegExp(`^KMS throttled signing with KMS key ${key.keyId} in eu-west-1 \\(ThrottlingException on \\d+ attempts within 1200 ms\\); new orders wait until KMS answers again$`),
      )
    } finally {
      kms.throttleNext(0)
    }
  })

  test('a key disabled while the relayer runs is SIGNER_UNAVAILABLE; enabled again, it signs', async () => {
    const running = kms.createKey({ spec: 'ECC_SECG_P256K1' })
    const signer = await createAwsKmsSigner({ keyId: running.keyId, client: kmsClient(), timeoutMs: 5_000 })
    kms.setKeyState(running.keyId, 'Disabled')
    const error = await signerError(signer.signTransaction(transfer(0)))
    expect(error.code).toBe('SIGNER_UNAVAILABLE')
    expect(error.message).toBe(`KMS key ${running.keyId} in eu-west-1 is disabled; new orders wait until it is enabled`)
    expect(error.fix).toBe(
      `enable it (aws kms enable-key --key-id ${running.keyId} --region eu-west-1) or set RELAYER_KMS_KEY_ID to an enabled ECC_SECG_P256K1 key`,
    )
    kms.setKeyState(running.keyId, 'Enabled')
    expect(await recoverTransactionAddress({ serializedTransaction: (await signer.signTransaction(transfer(0))) as `0x02${string}` })).toBe(signer.address)
  })

  test('a Sign that takes longer than timeoutMs is SIGNER_UNAVAILABLE at the deadline', async () => {
    const signer = await createAwsKmsSigner({ keyId: key.keyId, client: kmsClient(1), timeoutMs: 400 })
    kms.delay(3_000)
    try {
      const started = Date.now()
      const error = await signerError(signer.signTransaction(transfer(5)))
      expect(Date.now() - started).toBeLessThan(2_000)
      expect(error.code).toBe('SIGNER_UNAVAILABLE')
      expect(error.message).toBe(`KMS did not answer Sign for KMS key ${key.keyId} in eu-west-1 within 400 ms; new orders wait until it answers again`)
    } finally {
      kms.delay(0)
    }
  })

  test('a KMS that cannot be reached is SIGNER_UNAVAILABLE', async () => {
    const signer = await createAwsKmsSigner({ keyId: key.keyId, client: kmsClient(1), timeoutMs: 5_000 })
    await signer.close?.()
    const closedPort = await freePort()
    const unreachable = await signerError(
      createAwsKmsSigner({
        keyId: key.keyId,
        client: new KMSClient({ endpoint: `http://127.0.0.1:${closedPort}`, region: kms.region, credentials: kms.credentials, maxAttempts: 1 }),
        timeoutMs: 5_000,
      }),
    )
    expect(unreachable.code).toBe('SIGNER_UNAVAILABLE')
    expect(unreachable.message).toStartWith(`KMS did not answer GetPublicKey for KMS key ${key.keyId} in eu-west-1 (`)
  })

  test('no error holds the credentials, even when the service echoes them', async () => {
    const signer = await createAwsKmsSigner({ keyId: key.keyId, client: kmsClient(1), timeoutMs: 5_000 })
    kms.failNext({ type: 'AccessDeniedException', message: `denied for ${kms.credentials.accessKeyId} with ${kms.credentials.secretAccessKey}` })
    const error = await signerError(signer.signTransaction(transfer(6)))
    expect(error.code).toBe('SIGNER_UNAVAILABLE')
    expect(error.message).toBe(
      `AWS refused Sign on KMS key ${key.keyId} in eu-west-1 for the relayer's credentials (AccessDeniedException: denied for [redacted] with [redacted]); new orders wait until it answers again`,
    )
    expect(seenErrors.length).toBeGreaterThan(10)
    for (const seen of seenErrors) {
      const text = [seen.message, seen.fix ?? '', String(seen.walk()), JSON.stringify(seen), JSON.stringify(seen.toBody())].join('\n')
      expect(text).not.toContain(kms.credentials.secretAccessKey)
      expect(text).not.toContain(kms.credentials.accessKeyId)
    }
  })
})

describe('configuration from the environment', () => {
  test('readAwsKmsOptions reads RELAYER_KMS_KEY_ID in every form KMS accepts and refuses others', () => {
    expect(readAwsKmsOptions({})).toBeUndefined()
    expect(readAwsKmsOptions({ RELAYER_KMS_KEY_ID: '' })).toBeUndefined()
    for (const keyId of [
      '1234abcd-12ab-34cd-56ef-1234567890ab',
      'mrk-1234abcd12ab34cd56ef1234567890ab',
      'alias/relayer-gas',
      'arn:aws:kms:us-east-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      'arn:aws:kms:us-east-2:111122223333:alias/relayer-gas',
    ]) {
      expect(readAwsKmsOptions({ RELAYER_KMS_KEY_ID: keyId })).toEqual({ keyId })
    }
    expect(regionOfKeyArn('arn:aws:kms:us-east-2:111122223333:alias/relayer-gas')).toBe('us-east-2')
    expect(regionOfKeyArn('alias/relayer-gas')).toBeUndefined()
    let error: unknown
    try {
      readAwsKmsOptions({ RELAYER_KMS_KEY_ID: 'relayer-gas' })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(SignerError)
    expect((error as SignerError).code).toBe('SIGNER_CONFIG')
    expect((error as SignerError).message).toBe('RELAYER_KMS_KEY_ID must be a KMS key id, key ARN, alias name (alias/…) or alias ARN (got "relayer-gas")')
  })

  test("without a client, the SDK's standard chain gives region, credentials and the endpoint (AWS_ENDPOINT_URL_KMS)", async () => {
    // A process of its own, so the AWS_* variables are the SDK's only source and this file's environment is untouched.
    const script = [
      `import { createAwsKmsSigner, readAwsKmsOptions } from ${JSON.stringify(join(import.meta.dir, '../../src/signers/awsKms/index.ts'))}`,
      'const options = readAwsKmsOptions(process.env)',
      'const signer = await createAwsKmsSigner({ ...options, timeoutMs: 5000 })',
      'console.log(signer.description)',
      'await signer.close()',
    ].join('\n')
    // A home with no AWS files in it (bun writes its cache under HOME: a throw-away folder, not a path outside the test's own).
    const home = mkdtempSync(join(tmpdir(), 'kms-home-'))
    const child = Bun.spawn([process.execPath, '-e', script], {
      stdout: 'pipe',
      stderr: 'pipe',
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        RELAYER_KMS_KEY_ID: key.keyId,
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: kms.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: kms.credentials.secretAccessKey,
        AWS_ENDPOINT_URL_KMS: kms.url,
        AWS_CONFIG_FILE: join(home, 'no-config'),
        AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-credentials'),
        AWS_EC2_METADATA_DISABLED: 'true',
      },
    })
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
    rmSync(home, { recursive: true, force: true })
    expect(err).toBe('')
    expect(code).toBe(0)
    expect(out.trim()).toBe(`aws-kms ${key.keyId} in eu-west-1 (${publicKeyToAddress(toHex(key.publicKey))})`)
  })
})

describe('the DER parts', () => {
  const privateKey = generatePrivateKey()
  const point = secp256k1.getPublicKey(hexToBytes(privateKey), false)
  const address = privateKeyToAccount(privateKey).address
  const spkiPrefix = '3056301006072a8648ce3d020106052b8104000a034200'

  test('the public point is read from a secp256k1 SubjectPublicKeyInfo and nothing else', () => {
    expect(secp256k1PointFromSpki(hexToBytes(`0x${spkiPrefix}${toHex(point).slice(2)}`))).toEqual(point)
    // A P-256 key's SPKI (another curve OID, 91 bytes), a compressed point, a cut-off key.
    const nist = hexToBytes(`0x3059301306072a8648ce3d020106082a8648ce3d030107034200${toHex(p256.getPublicKey(p256.utils.randomPrivateKey(), false)).slice(2)}`)
    expect(() => secp256k1PointFromSpki(nist)).toThrow('the public key is 91 bytes of DER, not the 88 of a secp256k1 SubjectPublicKeyInfo')
    const compressed = hexToBytes(`0x${spkiPrefix}02${toHex(point).slice(4)}`)
    expect(() => secp256k1PointFromSpki(compressed)).toThrow('the public key is not a secp256k1 SubjectPublicKeyInfo with an uncompressed point (byte 23 is 0x02)')
    expect(() => secp256k1PointFromSpki(new Uint8Array(0))).toThrow('the public key is 0 bytes of DER, not the 88 of a secp256k1 SubjectPublicKeyInfo')
  })

  test('a high-s DER signature becomes the low-s signature and the recovery id a local key gives', () => {
    for (let i = 0; i < 16; i++) {
      const digest = hexToBytes(keccak256(numberToHex(i)))
      const low = secp256k1.sign(digest, hexToBytes(privateKey))
      const expected = { r: numberToHex(low.r, { size: 32 }), s: numberToHex(low.s, { size: 32 }), yParity: low.recovery as 0 | 1 }
      const high = new secp256k1.Signature(low.r, secp256k1.CURVE.n - low.s)
      expect(high.hasHighS()).toBe(true)
      expect(ethSignatureFromDer(high.toDERRawBytes(), digest, address)).toEqual(expected)
      expect(ethSignatureFromDer(low.toDERRawBytes(), digest, address)).toEqual(expected)
    }
  })

  test('bytes that are not DER, and a signature over another digest, are refused', () => {
    const digest = hexToBytes(keccak256('0x01'))
    const signature = secp256k1.sign(digest, hexToBytes(privateKey))
    expect(() => ethSignatureFromDer(signature.toCompactRawBytes(), digest, address)).toThrow()
    expect(() => ethSignatureFromDer(signature.toDERRawBytes(), hexToBytes(keccak256('0x02')), address)).toThrow(
      `the signature does not recover to ${address} with either recovery id`,
    )
  })
})
