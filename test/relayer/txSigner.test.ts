// The gas key signs in a thread of its own: the same bytes as in the main thread, the
// event loop free meanwhile, and a thread that cannot run leaves signing to the main
// thread, with one warning and every batch still signed.
import { expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Hex, parseTransaction, recoverTransactionAddress, type TransactionSerializableEIP1559 } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { createTxSigner } from '../../src/relayer/submitter/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'

const key = generatePrivateKey()
const account = privateKeyToAccount(key)
const txs = (count: number, from = 0): TransactionSerializableEIP1559[] =>
  Array.from({ length: count }, (_, i) => ({
    type: 'eip1559',
    chainId: 421614,
    nonce: from + i,
    to: account.address,
    data: `0x${'ab'.repeat(700 + i)}` as Hex,
    gas: 250_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000n,
  }))

test('a batch of 64 signed in the signer thread: the bytes viem signs, in order; the event loop turns meanwhile', async () => {
  const logger = createMemoryLogger()
  const signer = createTxSigner({ account, privateKey: key, logger })
  try {
    signer.start()
    expect(signer.where).toBe('thread')
    const batch = txs(64)
    let turns = 0
    const ticking = setInterval(() => turns++, 1)
    const raws = await signer.signAll(batch)
    clearInterval(ticking)
    expect(raws).toEqual(await Promise.all(batch.map((tx) => account.signTransaction(tx))))
    // ~15 ms of signing ran elsewhere: this thread's timers kept firing.
    expect(turns).toBeGreaterThan(0)
    expect(signer.where).toBe('thread')
    expect(logger.lines).toEqual([])
  } finally {
    signer.stop()
  }
})

test('each signed tx recovers to the gas key and carries the fields asked for', async () => {
  const signer = createTxSigner({ account, privateKey: key, logger: createMemoryLogger() })
  try {
    const batch = txs(3)
    const raws = await signer.signAll(batch)
    for (const [i, raw] of raws.entries()) {
      expect(await recoverTransactionAddress({ serializedTransaction: raw as `0x02${string}` })).toBe(account.address)
      const { type, chainId, nonce, to, data, gas, maxFeePerGas, maxPriorityFeePerGas } = parseTransaction(raw)
      expect({ type, chainId, nonce, to, data, gas, maxFeePerGas, maxPriorityFeePerGas } as object).toEqual({ ...batch[i]!, to: batch[i]!.to!.toLowerCase() })
    }
  } finally {
    signer.stop()
  }
})

test('batches sent together come back each to its own caller', async () => {
  const signer = createTxSigner({ account, privateKey: key, logger: createMemoryLogger() })
  try {
    const batches = [txs(5, 0), txs(3, 5), txs(7, 8)]
    const raws = await Promise.all(batches.map((batch) => signer.signAll(batch)))
    expect(raws).toEqual(await Promise.all(batches.map((batch) => Promise.all(batch.map((tx) => account.signTransaction(tx))))))
  } finally {
    signer.stop()
  }
})

test('a signer thread that dies: one warning, its batch and every later one signed in the main thread', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'order-relay-signer-'))
  try {
    const broken = join(dir, 'broken.ts')
    writeFileSync(broken, "self.onmessage = (event) => { if (event.data.kind === 'sign') throw new Error('boom') }\n")
    const logger = createMemoryLogger()
    const signer = createTxSigner({ account, privateKey: key, logger, threadUrl: broken })
    const batch = txs(4)
    expect(await signer.signAll(batch)).toEqual(await Promise.all(batch.map((tx) => account.signTransaction(tx))))
    expect(signer.where).toBe('main')
    expect(await signer.signAll(txs(2, 4))).toHaveLength(2)
    expect(logger.lines).toEqual(['warn: the signer thread stopped (boom); signing in the main thread from now on'])
    // The key appears nowhere in what was logged.
    expect(logger.lines.join('\n')).not.toContain(key.slice(2))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('without the key (signerThread off) every batch is signed in the main thread', async () => {
  const signer = createTxSigner({ account, logger: createMemoryLogger() })
  expect(signer.where).toBe('main')
  const batch = txs(3)
  expect(await signer.signAll(batch)).toEqual(await Promise.all(batch.map((tx) => account.signTransaction(tx))))
})

test('a batch at the thread when it is stopped is still signed (in the main thread), not left waiting', async () => {
  const logger = createMemoryLogger()
  const signer = createTxSigner({ account, privateKey: key, logger })
  signer.start()
  const batch = txs(64)
  const signing = signer.signAll(batch)
  signer.stop()
  // A signer that waited for the stopped thread would wait for good: the test's 10 s deadline (below) fails it, by its name.
  expect(await signing).toEqual(await Promise.all(batch.map((tx) => account.signTransaction(tx))))
  expect(signer.where).toBe('main')
  // Stopping is not a failure: no warning.
  expect(logger.lines).toEqual([])
}, 10_000)
