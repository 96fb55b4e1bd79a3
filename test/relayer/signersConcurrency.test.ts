// A gas key kept at a signer service (a remote signer, KMS) is asked for a batch's
// signatures together, at most RELAYER_SIGNER_CONCURRENCY at once, each bounded by
// RELAYER_SIGNER_TIMEOUT_MS; the raw txs come back in nonce order whatever order the
// service answers in, and one failure fails the whole batch and marks the signer down
// until a probe signature succeeds.
import { afterEach, expect, test } from 'bun:test'
import { type Hex, parseTransaction, type TransactionSerializableEIP1559 } from 'viem'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { createTxSigner, SignerRefusal, type TxSigner } from '../../src/relayer/submitter/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'
import { signerDouble } from '../../scripts/lib/index.ts'
import { waitFor } from '../helpers/waitFor.ts'

const key = generatePrivateKey()
const txs = (count: number, from = 0): TransactionSerializableEIP1559[] =>
  Array.from({ length: count }, (_, i) => ({
    type: 'eip1559',
    chainId: 421614,
    nonce: from + i,
    to: `0x${'11'.repeat(20)}`,
    data: `0x${'ab'.repeat(40 + i)}` as Hex,
    gas: 90_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000n,
  }))

let signer: TxSigner | undefined
afterEach(() => signer?.stop())

test('a batch of 20 at concurrency 4: never more than 4 at the service, the later nonces answered first, the raw txs in nonce order', async () => {
  // Later nonces answer sooner: the order of the answers is the reverse of the batch's.
  const double = signerDouble(key, { delayMs: (tx) => 5 + 2 * (20 - (tx.nonce ?? 0)) })
  const logger = createMemoryLogger()
  signer = createTxSigner({ gasSigner: double.signer, logger, concurrency: 4, timeoutMs: 5_000, chainId: 421614 })
  expect(signer.where).toBe('service')
  const batch = txs(20, 100)
  const raws = await signer.signAll(batch)
  expect(raws.map((raw) => parseTransaction(raw).nonce)).toEqual(batch.map((tx) => tx.nonce!))
  // Four at a time, every tx of the batch asked for once.
  expect(double.stats).toMatchObject({ mostInFlight: 4, inFlight: 0, signed: 20 })
  expect(double.stats.asked.toSorted((a, b) => a - b)).toEqual(batch.map((tx) => tx.nonce!))
  expect(signer.health!.down()).toBeUndefined()
  expect(logger.lines).toEqual([])
})

test('batches signed at the same time share the one limit', async () => {
  const double = signerDouble(key, { delayMs: 10 })
  signer = createTxSigner({ gasSigner: double.signer, logger: createMemoryLogger(), concurrency: 3, chainId: 421614 })
  const [a, b, c] = await Promise.all([signer.signAll(txs(5, 0)), signer.signAll(txs(4, 5)), signer.signAll(txs(6, 9))])
  expect([a, b, c].map((raws) => raws.map((raw) => parseTransaction(raw).nonce))).toEqual([
    [0, 1, 2, 3, 4],
    [5, 6, 7, 8],
    [9, 10, 11, 12, 13, 14],
  ])
  expect(double.stats.mostInFlight).toBe(3)
})

test('one signature refused: the whole batch fails (503 INSUFFICIENT_RELAYER_GAS naming the signer), the signer is down, and a probe brings it back', async () => {
  const double = signerDouble(key, { delayMs: 2, url: 'https://relayer:t0ken-never-shown@signer.example/' })
  const logger = createMemoryLogger()
  signer = createTxSigner({ gasSigner: double.signer, logger, concurrency: 8, chainId: 421614, probe: { firstMs: 50, maxMs: 200 } })
  double.mode = 'fail'
  const error = await signer.signAll(txs(6)).catch((failure: unknown) => failure)
  expect(error).toBeInstanceOf(SignerRefusal)
  expect({ code: (error as SignerRefusal).code, status: (error as SignerRefusal).status, message: (error as SignerRefusal).message }).toEqual({
    code: 'INSUFFICIENT_RELAYER_GAS',
    status: 503,
    message:
      "not broadcast: the gas key's signer (remote signer https://signer.example) failed (the remote signer https://signer.example did not answer (connection refused)); nothing was signed or spent; try another relayer",
  })
  // Every signature of the batch was waited for: none is left at the service.
  expect(double.stats.inFlight).toBe(0)
  expect(signer.health!.down()).toMatch(
    /^the gas key's signer \(remote signer https:\/\/signer\.example\) does not sign \(the remote signer https:\/\/signer\.example did not answer \(connection refused\)\) since \d{4}-\d\d-\d\dT[\d:.]+Z; new orders wait until it answers again$/,
  )
  // A second failure in the same episode is not logged again.
  await signer.signAll(txs(1)).catch(() => undefined)
  const signedBefore = double.stats.signed
  double.mode = 'sign'
  await waitFor('a probe signature to bring the signer back', () => signer!.health!.down() === undefined, 5_000)
  // The probe: one throw-away tx at a nonce the key never reaches, to itself, no fee; nothing else was signed.
  expect(double.stats.signed).toBe(signedBefore + 1)
  expect(double.stats.asked.at(-1)).toBe(Number.MAX_SAFE_INTEGER)
  expect(logger.lines).toEqual([
    "error: the gas key's signer (remote signer https://signer.example) failed: the remote signer https://signer.example did not answer (connection refused); this relayer takes no new orders until it signs again (probed every few seconds); transactions already signed are sent as signed",
    expect.stringMatching(/^the gas key's signer \(remote signer https:\/\/signer\.example\) answers again after \d+\.\d s; taking new orders$/),
  ])
  expect(logger.lines.join('\n')).not.toContain('t0ken-never-shown')
  const raws = await signer.signAll(txs(2, 7))
  expect(raws.map((raw) => parseTransaction(raw).nonce)).toEqual([7, 8])
})

test('a signer that does not answer within RELAYER_SIGNER_TIMEOUT_MS: the batch fails at the timeout and the limit is free again', async () => {
  const double = signerDouble(key)
  const logger = createMemoryLogger()
  signer = createTxSigner({ gasSigner: double.signer, logger, concurrency: 2, timeoutMs: 150, chainId: 421614, probe: { firstMs: 50, maxMs: 100 } })
  double.mode = 'hang'
  const started = performance.now()
  const error = (await signer.signAll(txs(4)).catch((failure: unknown) => failure)) as SignerRefusal
  const elapsed = performance.now() - started
  // Two rounds of two (the limit), each given up at 150 ms.
  expect(elapsed).toBeGreaterThanOrEqual(290)
  expect(elapsed).toBeLessThan(3_000)
  expect(error.message).toBe(
    "not broadcast: the gas key's signer (remote signer https://signer.invalid) failed (the remote signer https://signer.invalid did not sign within 150 ms (RELAYER_SIGNER_TIMEOUT_MS)); nothing was signed or spent; try another relayer",
  )
  expect(signer.health!.down()).toContain('did not sign within 150 ms (RELAYER_SIGNER_TIMEOUT_MS)')
  double.mode = 'sign'
  await waitFor('the signer back once it answers', () => signer!.health!.down() === undefined, 5_000)
  expect((await signer.signAll(txs(3))).length).toBe(3)
})

test('a signed tx other than the one asked for (another nonce) is a signer fault: the batch fails, nothing of it is returned', async () => {
  const double = signerDouble(key, { delayMs: 1 })
  const logger = createMemoryLogger()
  signer = createTxSigner({ gasSigner: double.signer, logger, chainId: 421614, probe: { firstMs: 60_000, maxMs: 60_000 } })
  double.mode = 'wrong'
  const error = (await signer.signAll(txs(3)).catch((failure: unknown) => failure)) as SignerRefusal
  expect(error.message).toBe(
    "not broadcast: the gas key's signer (remote signer https://signer.invalid) failed (signer fault: the signed tx has nonce 1 where 0 was asked; it is not broadcast (remote signer https://signer.invalid)); nothing was signed or spent; try another relayer",
  )
  expect(logger.lines).toHaveLength(1)
  expect(logger.lines[0]).toStartWith("error: the gas key's signer (remote signer https://signer.invalid) failed: ")
  // A real signature that succeeds brings it back too.
  double.mode = 'sign'
  await signer.signAll(txs(1))
  expect(signer.health!.down()).toBeUndefined()
})

test('a local key (RELAYER_PK, a keystore) still signs in the signer thread, which takes its key', async () => {
  const { privateKeySigner } = await import('../../src/signers/index.ts')
  const local = privateKeySigner(key, { kind: 'private-key', description: 'RELAYER_PK' })
  signer = createTxSigner({ gasSigner: local, logger: createMemoryLogger(), concurrency: 2 })
  signer.start()
  expect(signer.where).toBe('thread')
  expect(signer.health).toBeUndefined()
  expect(local.takePrivateKey!()).toBeUndefined()
  const batch = txs(5)
  expect(await signer.signAll(batch)).toEqual(await Promise.all(batch.map((tx) => local.signTransaction(tx))))
})

test('a tx signed by another key is refused by the check in the signer thread: nothing of the batch is returned', async () => {
  const other = privateKeyToAccount(generatePrivateKey())
  const asked = privateKeyToAccount(key)
  const logger = createMemoryLogger()
  // A signer that claims the gas key's address and signs with another key.
  signer = createTxSigner({
    gasSigner: { kind: 'remote', address: asked.address, description: 'https://signer.invalid', signTransaction: (tx) => other.signTransaction(tx) },
    logger,
    chainId: 421614,
    probe: { firstMs: 60_000, maxMs: 60_000 },
  })
  signer.start()
  const error = (await signer.signAll(txs(2)).catch((failure: unknown) => failure)) as SignerRefusal
  expect(error).toBeInstanceOf(SignerRefusal)
  expect(error.message).toBe(
    `not broadcast: the gas key's signer (remote signer https://signer.invalid) failed (signer fault: the signed tx is signed by ${other.address} where ${asked.address} was asked; it is not broadcast (remote signer https://signer.invalid)); nothing was signed or spent; try another relayer`,
  )
  expect(signer.health!.down()).toContain(`signed by ${other.address}`)
  // No warning: the check ran in the thread.
  expect(logger.lines.filter((line) => line.startsWith('warn:'))).toEqual([])
})

test('a signer thread that cannot run: one warning, the checks run in the main thread, and a wrong tx is still refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'order-relay-checker-'))
  try {
    const broken = join(dir, 'broken.ts')
    writeFileSync(broken, "self.onmessage = (event) => { if (event.data.kind === 'check') throw new Error('boom') }\n")
    const double = signerDouble(key, { delayMs: 1 })
    const logger = createMemoryLogger()
    signer = createTxSigner({ gasSigner: double.signer, logger, chainId: 421614, threadUrl: broken, probe: { firstMs: 60_000, maxMs: 60_000 } })
    const batch = txs(3)
    const raws = await signer.signAll(batch)
    expect(raws.map((raw) => parseTransaction(raw).nonce)).toEqual([0, 1, 2])
    expect(logger.lines).toEqual(['warn: the signer thread stopped (boom); checking signed txs in the main thread from now on'])
    double.mode = 'wrong'
    const error = (await signer.signAll(txs(1, 3)).catch((failure: unknown) => failure)) as SignerRefusal
    expect(error.message).toContain('signer fault: the signed tx has nonce 4 where 3 was asked')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
