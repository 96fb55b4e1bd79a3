// A slot's life (docs/relayer-safety.md): one table of states and moves, the only place a
// slot moves. A move its state does not allow changes nothing; a slot the batch sender
// holds (signed, its broadcast not answered) is left alone by the nonce keeper, which
// would otherwise send a tx the sender may still drop and sign again at another nonce.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { openJournal } from '../../src/relayer/journal/index.ts'
import { createNonceKeeper, createSlotWatch, createTxSigner, slotDiagram, slotMoves } from '../../src/relayer/submitter/index.ts'
import { createSlotLife, stateOf } from '../../src/relayer/submitter/slotLife.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'
import { keccak256, keccakReady } from '../../src/wire/index.ts'
import { signedTx } from '../../scripts/lib/index.ts'

const owner = { chainId: 31337, address: devnetAccounts.relayer.address }
const word = (n: number, fill = 'a') => `0x${n.toString(16).padStart(4, '0')}${fill.repeat(60)}` as Hex
const newSlot = (nonce: number) => ({
  nonce,
  orderHash: word(nonce, 'b'),
  consumer: null,
  adapter: null,
  payToken: null,
  tx: { hash: word(nonce), nonce, raw: signedTx({ nonce, to: devnetAccounts.payee.address, data: '0x' }), kind: 'order' as const, signedAt: Date.now() },
})

test('docs/relayer-safety.md draws the moves the table holds', () => {
  const doc = readFileSync(join(import.meta.dir, '..', '..', 'docs', 'relayer-safety.md'), 'utf8')
  expect(doc).toContain(`\`\`\`mermaid\n${slotDiagram()}\n\`\`\``)
  // Every state is reached, and only `confirmed` and `foreign` are final.
  const reached = new Set(Object.values(slotMoves).map((move) => move.to))
  for (const state of ['signed', 'pending', 'mined', 'confirmed', 'foreign', 'dropped']) expect(reached.has(state as never)).toBe(true)
  const leaving = new Set(Object.values(slotMoves).flatMap((move) => move.from as readonly string[]))
  expect([...reached].filter((state) => !leaving.has(state))).toEqual(['dropped', 'foreign'])
})

test('a slot moves only as the table says: a second resolution, a confirmation of a pending slot, a reorg of a pending one and a take of a held one change nothing', async () => {
  const journal = openJournal(':memory:', owner)
  const life = createSlotLife(journal)
  await life.recorded([newSlot(0), newSlot(1)])
  expect(life.state(journal.slot(0)!)).toBe('signed')
  // The sender holds them: not the nonce keeper's to take.
  life.taken(0, 'taken')
  expect(journal.slot(0)?.status).toBe('pending')
  life.sent([0, 1])
  expect(life.state(journal.slot(0)!)).toBe('pending')
  life.confirmed([0])
  life.reorged([0])
  expect(journal.slot(0)).toMatchObject({ status: 'pending', confirmed: false })
  life.mined([{ nonce: 0, status: 'settled', txHash: word(0), blockNumber: 5n, blockHash: word(5, 'c') }])
  life.mined([{ nonce: 0, status: 'reverted', txHash: word(0), blockNumber: 6n }])
  expect(journal.slot(0)).toMatchObject({ status: 'settled', blockNumber: 5n })
  expect(life.state(journal.slot(0)!)).toBe('mined')
  life.confirmed([0])
  expect(life.state(journal.slot(0)!)).toBe('confirmed')
  // A held slot cannot be dropped once the node took it; a mined one cannot be replaced.
  life.dropped([1])
  expect(journal.slot(1)?.status).toBe('pending')
  await expect(life.replaced({ hash: word(9), nonce: 0, raw: signedTx({ nonce: 0, to: devnetAccounts.payee.address, data: '0x' }), kind: 'filler', signedAt: Date.now() })).rejects.toThrow(
    'nonce 0 cannot take a replacement: its slot is settled',
  )
  life.reorged([0])
  expect(life.state(journal.slot(0)!)).toBe('pending')
  expect(stateOf({ status: 'foreign', confirmed: true }, false)).toBe('foreign')
  journal.close()
})

test('a waiter is woken by the move that resolves its slot, mined or taken', async () => {
  const journal = openJournal(':memory:', owner)
  const life = createSlotLife(journal)
  await life.recorded([newSlot(0), newSlot(1)])
  life.sent([0, 1])
  const mined = life.outcome(0, 10_000)
  const taken = life.outcome(1, 10_000)
  life.mined([{ nonce: 0, status: 'settled', txHash: word(0), blockNumber: 5n }])
  life.taken(1, 'not settled: taken')
  expect(await mined).toMatchObject({ nonce: 0, status: 'settled' })
  expect(await taken).toMatchObject({ nonce: 1, status: 'foreign', outcome: JSON.stringify({ message: 'not settled: taken' }) })
  journal.close()
})

test('a write that fails leaves no slot of it and no hold, and the slots written before stay', async () => {
  const journal = openJournal(':memory:', owner)
  const life = createSlotLife(journal)
  await life.recorded([newSlot(0)])
  // The same nonce again: the commit fails, and the first slot stays as it was.
  await expect(life.recorded([newSlot(1), newSlot(0)])).rejects.toThrow()
  expect(journal.slot(1)).toBeUndefined()
  expect(journal.slot(0)?.status).toBe('pending')
  expect(life.held(1)).toBe(false)
  expect(life.held(0)).toBe(true)
  journal.close()
})

describe('the nonce keeper and the batch sender', () => {
  let devnet: Devnet
  beforeAll(async () => {
    devnet = await startDevnet()
  }, 60_000)
  afterAll(async () => {
    await devnet?.stop()
  })

  test('the nonce keeper leaves a slot the batch sender holds alone, however long it waits; once the sender lets go unanswered, the keeper sends it as signed', async () => {
    await keccakReady
    const account = privateKeyToAccount(devnetAccounts.spare.privateKey)
    const nonce = await devnet.publicClient.getTransactionCount({ address: account.address })
    const raw = await account.signTransaction({ type: 'eip1559', chainId: devnet.chainId, nonce, to: devnetAccounts.payee.address, value: 1n, gas: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n })
    const hash = keccak256(raw)
    const journal = openJournal(':memory:', { chainId: devnet.chainId, address: account.address })
    const logger = createMemoryLogger()
    const watch = createSlotWatch({ client: devnet.publicClient, journal, logger, describe: async () => undefined })
    const fees = { fresh: async () => ({ maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n }), cap: undefined } as never
    const keeper = createNonceKeeper({ client: devnet.publicClient, account, chainId: devnet.chainId, fees, watch, logger, reviveAfterMs: 0, wouldRevert: async () => undefined, signer: createTxSigner({ account, logger }) })
    // Signed and written long ago, its broadcast still unanswered (a slow node).
    await watch.life.recorded([{ nonce, orderHash: null, consumer: null, adapter: null, payToken: null, tx: { hash, nonce, raw, kind: 'order', signedAt: Date.now() - 60_000 } }])
    await keeper.tick()
    expect(await devnet.publicClient.getTransaction({ hash }).catch(() => null)).toBeNull()
    expect(logger.lines).toEqual([])
    watch.life.unanswered([nonce])
    await keeper.tick()
    expect(logger.lines).toEqual([`warn: tx ${hash} was no longer known to the node; sent it again as signed`])
    expect((await devnet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status).toBe('success')
    journal.close()
  }, 30_000)
})
