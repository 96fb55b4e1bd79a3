// The remote signer against a real signer: anvil answers eth_signTransaction for its
// development accounts. Proxies in front of it require a bearer token or a client
// certificate, or change its answers to play a faulty, slow or Clef-speaking signer.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createPublicClient, type Hex, http, type PublicClient, parseTransaction, serializeTransaction, type TransactionSerializableEIP1559 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { anvilInstance, devnetAccounts, findAnvil } from '../../src/devnet/index.ts'
import { createMemoryLogger, freePort } from '../../src/shared/index.ts'
import { type GasSigner, SignerError } from '../../src/signers/gasSigner.ts'
import { createRemoteSigner, readRemoteSignerOptions } from '../../src/signers/remote/index.ts'
import { makeCertificates, opensslPath, type TestCertificates } from './support/certificates.ts'
import { type RpcAnswer, type SignerProxy, startSignerProxy } from './support/signerProxy.ts'

const chainId = 31337
const gasKey = privateKeyToAccount(devnetAccounts.deployer.privateKey)
const otherKey = privateKeyToAccount(devnetAccounts.spare.privateKey)
const token = 'remote-signer-test-token-5f3a9c1e'
let anvil: ReturnType<typeof anvilInstance>
let anvilUrl: string
let client: PublicClient
let certificates: TestCertificates | undefined
const proxies: SignerProxy[] = []

if (!opensslPath) console.log("test/signers/remoteSigner.test.ts: skipping the mTLS tests: openssl is absent (install Debian's package: apt-get install -y openssl)")

/** The test certificates (made in beforeAll where openssl is installed; the tests that use them skip otherwise). */
function certs(): TestCertificates {
  if (!certificates) throw new Error('no test certificates: openssl is absent')
  return certificates
}

beforeAll(async () => {
  const port = await freePort()
  anvil = anvilInstance({ binary: findAnvil(), chainId, port, host: '127.0.0.1' })
  await anvil.start()
  anvilUrl = `http://127.0.0.1:${port}`
  client = createPublicClient({ transport: http(anvilUrl, { retryCount: 0 }), pollingInterval: 50 }) as PublicClient
  if (opensslPath) certificates = makeCertificates()
})

afterAll(async () => {
  for (const proxy of proxies) await proxy.stop()
  await anvil.stop()
  certificates?.remove()
})

function proxy(options: Parameters<typeof startSignerProxy>[1] = {}): SignerProxy {
  const started = startSignerProxy(anvilUrl, options)
  proxies.push(started)
  return started
}

/** The next tx of the gas key: 0xabcdef to the payee, at the node's next nonce. */
async function nextTx(overrides: Partial<TransactionSerializableEIP1559> = {}): Promise<TransactionSerializableEIP1559> {
  return {
    type: 'eip1559',
    chainId,
    nonce: await client.getTransactionCount({ address: gasKey.address, blockTag: 'pending' }),
    to: devnetAccounts.payee.address,
    data: '0xabcdef',
    gas: 30_000n,
    maxFeePerGas: 3_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    value: 0n,
    ...overrides,
  }
}

/** The rejection of `promise` as a SignerError (fails the test when it resolves). */
async function signerError(promise: Promise<unknown>): Promise<SignerError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof SignerError) return error
    throw error
  }
  throw new Error('expected a SignerError, got a result')
}

/** Every text an error carries: message, fix, details and its causes' messages. */
function allText(error: unknown): string {
  const parts: string[] = []
  let current: unknown = error
  while (current instanceof Error) {
    parts.push(current.message, String((current as { fix?: string }).fix ?? ''), current.stack ?? '')
    current = current.cause
  }
  return parts.join('\n')
}

function remote(url: string, extra: Partial<Parameters<typeof createRemoteSigner>[0]> = {}): Promise<GasSigner> {
  return createRemoteSigner({ url, address: gasKey.address, chainId, timeoutMs: 5_000, ...extra })
}

describe('anvil as the signer', () => {
  test('signs the exact bytes the local key signs, and the tx mines', async () => {
    const signer = await remote(anvilUrl)
    expect(signer.kind).toBe('remote')
    expect(signer.address).toBe(gasKey.address)
    expect(signer.description).toBe(`remote signer ${anvilUrl} (${gasKey.address})`)
    expect(signer.takePrivateKey).toBeUndefined()
    const tx = await nextTx()
    const raw = await signer.signTransaction(tx)
    expect(raw).toBe(await gasKey.signTransaction(tx))
    const hash = await client.request({ method: 'eth_sendRawTransaction', params: [raw] })
    const receipt = await client.waitForTransactionReceipt({ hash, timeout: 10_000 })
    expect(receipt.status).toBe('success')
    expect(receipt.from).toBe(gasKey.address.toLowerCase() as Hex)
    expect(receipt.to).toBe(devnetAccounts.payee.address.toLowerCase() as Hex)
    await signer.close?.()
  })

  test('a URL with credentials is described without them', async () => {
    const withCredentials = anvilUrl.replace('http://', 'http://admin:hunter2secret@')
    const signer = await remote(`${withCredentials}/?apikey=querysecret`)
    expect(signer.description).toBe(`remote signer ${anvilUrl} (${gasKey.address})`)
  })

  test('a tx without calldata, and with a value, signs as the local key does', async () => {
    const signer = await remote(anvilUrl)
    const tx = await nextTx({ data: undefined, gas: 21_000n, value: 12_345n })
    expect(await signer.signTransaction(tx)).toBe(await gasKey.signTransaction(tx))
  })

  test('an account the signer does not hold stops the start (SIGNER_CONFIG)', async () => {
    const stranger = '0x1111111111111111111111111111111111111111'
    const error = await signerError(createRemoteSigner({ url: anvilUrl, address: stranger, chainId, timeoutMs: 5_000 }))
    expect(error.code).toBe('SIGNER_CONFIG')
    expect(error.exitCode).toBe(2)
    expect(error.shortMessage).toBe(
      `remote signer ${anvilUrl} does not hold ${stranger} (it holds 0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266, 0x70997970c51812dc3a010c7d01b50e0d17dc79c8, 0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc, 0x90f79bf6eb2c4f870365e785982e1f101e93b906, 0x15d34aaf54267db7d7c367839aaf71a00a2c6a65 and 5 more)`,
    )
    expect(error.fix).toBe('load the gas key into the signer, or set RELAYER_SIGNER_ADDRESS to one of the accounts it holds')
  })

  test('a signer that cannot be reached stops the start, naming the URL without credentials', async () => {
    const port = await freePort()
    const error = await signerError(remote(`http://admin:hunter2secret@127.0.0.1:${port}/sign?apikey=querysecret`))
    expect(error.code).toBe('SIGNER_CONFIG')
    expect(error.shortMessage).toStartWith(`remote signer http://127.0.0.1:${port}/sign cannot be reached (`)
    expect(error.fix).toBe('start the signer, or point RELAYER_SIGNER_URL at it')
    expect(allText(error)).not.toContain('hunter2secret')
    expect(allText(error)).not.toContain('querysecret')
  })
})

describe('bearer token', () => {
  test('signs with the token; without it the start fails; the token is in no message or description', async () => {
    const guarded = proxy({ token })
    const signer = await remote(guarded.url, { token })
    expect(signer.description).toBe(`remote signer ${guarded.url} (${gasKey.address}), bearer token`)
    const tx = await nextTx()
    expect(await signer.signTransaction(tx)).toBe(await gasKey.signTransaction(tx))
    expect(guarded.authorizations.at(-1)).toBe(`Bearer ${token}`)

    const without = await signerError(remote(guarded.url))
    expect(without.code).toBe('SIGNER_CONFIG')
    expect(without.shortMessage).toBe(`remote signer ${guarded.url} refused the relayer (HTTP 401)`)
    expect(without.fix).toContain('RELAYER_SIGNER_TOKEN_FILE')
    const wrong = await signerError(remote(guarded.url, { token: 'not-the-token' }))
    expect(wrong.code).toBe('SIGNER_CONFIG')
    expect(allText(wrong)).not.toContain('not-the-token')
    expect(allText(without)).not.toContain(token)
    expect(signer.description).not.toContain(token)
  })

  test('a token the signer stops accepting: SIGNER_UNAVAILABLE without the token in the message', async () => {
    const guarded = proxy({ token })
    const signer = await remote(guarded.url, { token })
    // The signer's token is rotated; it answers 401, and then a JSON-RPC error that echoes the header.
    guarded.handle = async () => new Response('unauthorized', { status: 401 })
    const refused = await signerError(signer.signTransaction(await nextTx()))
    expect(refused.code).toBe('SIGNER_UNAVAILABLE')
    expect(refused.shortMessage).toBe(`remote signer ${guarded.url} refused to sign (HTTP 401)`)
    guarded.handle = async (call) => ({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: `bad credentials: Bearer ${token} for ${call.method}` } })
    const echoed = await signerError(signer.signTransaction(await nextTx()))
    expect(echoed.code).toBe('SIGNER_UNAVAILABLE')
    expect(echoed.shortMessage).toBe(`remote signer ${guarded.url} refused to sign (JSON-RPC error -32000: bad credentials: Bearer *** for eth_signTransaction)`)
    for (const error of [refused, echoed]) expect(allText(error)).not.toContain(token)
  })
})

describe.skipIf(!opensslPath)('mTLS', () => {
  const serverTls = () => ({ cert: certs().server.cert, key: certs().server.key, ca: certs().ca.cert })

  test('signs with the client certificate; without one, or with one of another CA, the start fails', async () => {
    const guarded = proxy({ tls: serverTls() })
    expect(guarded.url).toStartWith('https://127.0.0.1:')
    const signer = await remote(guarded.url, { tls: { cert: certs().client.cert, key: certs().client.key, ca: certs().ca.cert } })
    expect(signer.description).toBe(`remote signer ${guarded.url} (${gasKey.address}), mTLS`)
    const tx = await nextTx()
    expect(await signer.signTransaction(tx)).toBe(await gasKey.signTransaction(tx))

    const without = await signerError(remote(guarded.url, { tls: { ca: certs().ca.cert } }))
    expect(without.code).toBe('SIGNER_CONFIG')
    expect(without.shortMessage).toStartWith(`remote signer ${guarded.url} cannot be reached (`)
    expect(without.fix).toBe(
      "start the signer, or point RELAYER_SIGNER_URL at it; check the client certificate the signer requires (RELAYER_SIGNER_TLS_CERT, RELAYER_SIGNER_TLS_KEY) and the CA of the signer's own certificate (RELAYER_SIGNER_TLS_CA)",
    )
    const foreign = await signerError(remote(guarded.url, { tls: { cert: certs().otherClient.cert, key: certs().otherClient.key, ca: certs().ca.cert } }))
    expect(foreign.code).toBe('SIGNER_CONFIG')
    // Only the client certificate was missing: the proxy saw no call from either.
    expect(guarded.calls.filter((call) => call.method === 'eth_accounts')).toHaveLength(1)
  })

  test("a signer certificate from a CA the relayer was not given is refused", async () => {
    const guarded = proxy({ tls: serverTls() })
    const error = await signerError(remote(guarded.url, { tls: { cert: certs().client.cert, key: certs().client.key } }))
    expect(error.code).toBe('SIGNER_CONFIG')
    expect(guarded.calls).toHaveLength(0)
  })
})

test.skipIf(!opensslPath)('from the environment: a token file and a client certificate, both required by the signer', async () => {
  const certificates = certs()
  const guarded = proxy({ token, tls: { cert: certificates.server.cert, key: certificates.server.key, ca: certificates.ca.cert } })
  const tokenFile = join(certificates.dir, 'signer-token')
  writeFileSync(tokenFile, `${token}\n`)
  const options = readRemoteSignerOptions({
    RELAYER_SIGNER_URL: guarded.url,
    RELAYER_SIGNER_ADDRESS: gasKey.address,
    RELAYER_SIGNER_TOKEN_FILE: tokenFile,
    RELAYER_SIGNER_TLS_CERT: join(certificates.dir, 'client.crt'),
    RELAYER_SIGNER_TLS_KEY: join(certificates.dir, 'client.key'),
    RELAYER_SIGNER_TLS_CA: join(certificates.dir, 'ca.crt'),
    RELAYER_SIGNER_TIMEOUT_MS: '4000',
  })
  if (!options) throw new Error('RELAYER_SIGNER_URL is set: options expected')
  const signer = await createRemoteSigner({ ...options, chainId })
  expect(signer.description).toBe(`remote signer ${guarded.url} (${gasKey.address}), bearer token, mTLS`)
  const tx = await nextTx()
  expect(await signer.signTransaction(tx)).toBe(await gasKey.signTransaction(tx))
  expect(guarded.authorizations).toEqual([`Bearer ${token}`, `Bearer ${token}`])
})

describe('a faulty signer', () => {
  /** A proxy that has anvil sign `change(request)` instead of the request, or answers `replace(raw)` for anvil's answer. */
  function faulty(change: { request?: (request: Record<string, unknown>) => Record<string, unknown>; answer?: (raw: Hex) => Promise<Hex> }) {
    return proxy({
      handle: async (call, forward) => {
        if (call.method !== 'eth_signTransaction') return forward()
        const request = call.params[0] as Record<string, unknown>
        const answer: RpcAnswer = await forward({ method: call.method, params: [change.request ? change.request(request) : request] })
        if (change.answer && typeof answer.result === 'string') answer.result = await change.answer(answer.result as Hex)
        return answer
      },
    })
  }

  async function expectFault(signerProxy: SignerProxy, expected: string) {
    const logger = createMemoryLogger()
    const signer = await remote(signerProxy.url, { logger })
    const tx = await nextTx()
    const nonceBefore = await client.getTransactionCount({ address: gasKey.address, blockTag: 'pending' })
    const error = await signerError(signer.signTransaction(tx))
    expect(error.code).toBe('SIGNER_FAULT')
    expect(error.exitCode).toBe(1)
    expect(error.shortMessage).toBe(`signer fault: ${expected}; it is not broadcast (remote signer ${signerProxy.url})`)
    expect(logger.lines).toEqual([`error: ${error.shortMessage}`])
    // Nothing was sent: the key's pending nonce is where it was and the pool is empty.
    expect(await client.getTransactionCount({ address: gasKey.address, blockTag: 'pending' })).toBe(nonceBefore)
    const pool = await client.request({ method: 'txpool_content' as 'eth_chainId' } as never)
    expect(JSON.stringify(pool)).toBe('{"pending":{},"queued":{}}')
  }

  test('a tx signed by another key', async () => {
    const signerProxy = faulty({
      answer: async (raw) => {
        const { r: _r, s: _s, v: _v, yParity: _y, ...tx } = parseTransaction(raw) as TransactionSerializableEIP1559 & Record<string, unknown>
        return otherKey.signTransaction(tx as TransactionSerializableEIP1559)
      },
    })
    await expectFault(signerProxy, `the signed tx is signed by ${otherKey.address} where ${gasKey.address} was asked`)
  })

  test('another nonce', async () => {
    const nonce = await client.getTransactionCount({ address: gasKey.address, blockTag: 'pending' })
    const signerProxy = faulty({ request: (request) => ({ ...request, nonce: `0x${(nonce + 1).toString(16)}` }) })
    await expectFault(signerProxy, `the signed tx has nonce ${nonce + 1} where ${nonce} was asked`)
  })

  test('other calldata', async () => {
    const signerProxy = faulty({ request: (request) => ({ ...request, data: '0xabcdee', input: '0xabcdee' }) })
    await expectFault(signerProxy, 'the signed tx has other data (3 bytes, 0xabcdee…) than asked (3 bytes, 0xabcdef…)')
  })

  test('another recipient', async () => {
    const signerProxy = faulty({ request: (request) => ({ ...request, to: otherKey.address }) })
    await expectFault(signerProxy, `the signed tx has to ${otherKey.address.toLowerCase()} where ${devnetAccounts.payee.address.toLowerCase()} was asked`)
  })

  test('more gas', async () => {
    const signerProxy = faulty({ request: (request) => ({ ...request, gas: '0x7531' }) })
    await expectFault(signerProxy, 'the signed tx has gas 30001 where 30000 was asked')
  })

  test('a higher fee cap', async () => {
    const signerProxy = faulty({ request: (request) => ({ ...request, maxFeePerGas: '0xb2d05e01' }) })
    await expectFault(signerProxy, 'the signed tx has maxFeePerGas 3000000001 where 3000000000 was asked')
  })

  test('a higher tip', async () => {
    const signerProxy = faulty({ request: (request) => ({ ...request, maxPriorityFeePerGas: '0x77359400' }) })
    await expectFault(signerProxy, 'the signed tx has maxPriorityFeePerGas 2000000000 where 1000000000 was asked')
  })

  test('a value', async () => {
    const signerProxy = faulty({ request: (request) => ({ ...request, value: '0x1' }) })
    await expectFault(signerProxy, 'the signed tx has value 1 where 0 was asked')
  })

  test('another chain id (the gas key signing for another chain)', async () => {
    const signerProxy = faulty({
      answer: async (raw) => {
        const { r: _r, s: _s, v: _v, yParity: _y, ...tx } = parseTransaction(raw) as TransactionSerializableEIP1559 & Record<string, unknown>
        return gasKey.signTransaction({ ...(tx as TransactionSerializableEIP1559), chainId: 1 })
      },
    })
    await expectFault(signerProxy, `the signed tx has chain id 1 where ${chainId} was asked`)
  })

  test('a legacy tx', async () => {
    const signerProxy = faulty({
      answer: async (raw) => {
        const tx = parseTransaction(raw) as TransactionSerializableEIP1559
        return gasKey.signTransaction({ type: 'legacy', chainId, nonce: tx.nonce ?? 0, to: tx.to ?? null, data: tx.data, gas: tx.gas ?? 0n, gasPrice: tx.maxFeePerGas ?? 0n })
      },
    })
    await expectFault(signerProxy, 'the signer returned a legacy tx where an EIP-1559 (type 2) tx was asked')
  })

  test('an unsigned tx', async () => {
    const signerProxy = faulty({
      answer: async (raw) => {
        const { r: _r, s: _s, v: _v, yParity: _y, ...tx } = parseTransaction(raw) as TransactionSerializableEIP1559 & Record<string, unknown>
        return serializeTransaction(tx as TransactionSerializableEIP1559)
      },
    })
    await expectFault(signerProxy, 'the signer returned an unsigned tx')
  })

  test('an answer that is not a signed tx', async () => {
    const signerProxy = proxy({ handle: async (call, forward) => (call.method === 'eth_signTransaction' ? { jsonrpc: '2.0', id: 1, result: { signed: true } } : forward()) })
    const logger = createMemoryLogger()
    const signer = await remote(signerProxy.url, { logger })
    const error = await signerError(signer.signTransaction(await nextTx()))
    expect(error.code).toBe('SIGNER_FAULT')
    expect(error.shortMessage).toBe(`signer fault: remote signer ${signerProxy.url} answered with a result that is neither a raw signed tx nor { raw }; nothing is broadcast`)
    expect(logger.lines).toEqual([`error: ${error.shortMessage}`])
  })
})

describe('an unavailable signer', () => {
  test('a signer that never answers the signature: SIGNER_UNAVAILABLE within timeoutMs', async () => {
    const hanging = proxy({ handle: (call, forward) => (call.method === 'eth_signTransaction' ? new Promise<never>(() => {}) : forward()) })
    const signer = await remote(hanging.url, { timeoutMs: 300 })
    const started = performance.now()
    const error = await signerError(signer.signTransaction(await nextTx()))
    const took = performance.now() - started
    expect(error.code).toBe('SIGNER_UNAVAILABLE')
    expect(error.shortMessage).toBe(`remote signer ${hanging.url} did not sign in time (no answer within 300 ms)`)
    expect(took).toBeGreaterThanOrEqual(290)
    expect(took).toBeLessThan(1_500)
  })

  test('a signer that never answers at start: SIGNER_CONFIG within timeoutMs', async () => {
    const hanging = proxy({ handle: () => new Promise<never>(() => {}) })
    const started = performance.now()
    const error = await signerError(remote(hanging.url, { timeoutMs: 300 }))
    expect(performance.now() - started).toBeLessThan(1_500)
    expect(error.code).toBe('SIGNER_CONFIG')
    expect(error.shortMessage).toBe(`remote signer ${hanging.url} cannot be reached (no answer within 300 ms)`)
  })

  test('a 5xx, a JSON-RPC error (an account the signer no longer holds) and a stopped signer: SIGNER_UNAVAILABLE', async () => {
    const flaky = proxy()
    const signer = await remote(flaky.url)
    flaky.handle = async () => new Response('busy', { status: 503 })
    const busy = await signerError(signer.signTransaction(await nextTx()))
    expect([busy.code, busy.shortMessage]).toEqual(['SIGNER_UNAVAILABLE', `remote signer ${flaky.url} refused to sign (HTTP 503)`])

    // anvil's own answer for an account it does not hold, asked for ours.
    flaky.handle = async (call, forward) => forward({ method: call.method, params: [{ ...(call.params[0] as object), from: '0x1111111111111111111111111111111111111111' }] })
    const unknown = await signerError(signer.signTransaction(await nextTx()))
    expect([unknown.code, unknown.shortMessage]).toEqual(['SIGNER_UNAVAILABLE', `remote signer ${flaky.url} refused to sign (JSON-RPC error -32602: No Signer available)`])
    expect(unknown.fix).toBe("check that the signer still holds the relayer's account, unlocked, and its log")

    flaky.handle = undefined
    const tx = await nextTx()
    expect(await signer.signTransaction(tx)).toBe(await gasKey.signTransaction(tx))
    await flaky.stop()
    const stopped = await signerError(signer.signTransaction(tx))
    expect(stopped.code).toBe('SIGNER_UNAVAILABLE')
    expect(stopped.shortMessage).toStartWith(`remote signer ${flaky.url} cannot be reached (`)
  })
})

test("Clef's dialect: account_list and account_signTransaction answering { raw, tx }", async () => {
  const clef = proxy({
    handle: async (call, forward) => {
      if (call.method === 'account_list') return forward({ method: 'eth_accounts', params: [] })
      if (call.method === 'account_signTransaction') {
        const answer = await forward({ method: 'eth_signTransaction', params: call.params })
        return { ...answer, result: { raw: answer.result, tx: { nonce: '0x0' } } }
      }
      return { jsonrpc: '2.0', id: 1, error: { code: -32601, message: `the method ${call.method} does not exist/is not available` } }
    },
  })
  const signer = await remote(clef.url)
  const tx = await nextTx()
  expect(await signer.signTransaction(tx)).toBe(await gasKey.signTransaction(tx))
  expect(clef.calls.map((call) => call.method)).toEqual(['eth_accounts', 'account_list', 'account_signTransaction'])
  const request = clef.calls[2]?.params[0] as Record<string, string>
  expect(request).toEqual({
    from: gasKey.address,
    to: devnetAccounts.payee.address,
    gas: '0x7530',
    maxFeePerGas: '0xb2d05e00',
    maxPriorityFeePerGas: '0x3b9aca00',
    nonce: `0x${(tx.nonce ?? 0).toString(16)}`,
    value: '0x0',
    data: '0xabcdef',
    input: '0xabcdef',
    chainId: '0x7a69',
    type: '0x2',
  })
})
