// The journal stays small: resolved slots, their txs and kept reverts older than
// RELAYER_JOURNAL_RETENTION_DAYS go; pending slots and what a running cool-down needs
// stay; and a replay of a pruned order is still answered, from the Broker's logs.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { createJournalPruning, openJournal } from '../../src/relayer/journal/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'
import { signedTx } from '../../scripts/lib/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer } from '../helpers/relayer.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-pruning-'))
let devnet: Devnet
beforeAll(async () => {
  devnet = await startDevnet()
}, 60_000)
afterAll(async () => {
  await devnet?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const owner = { chainId: 31337, address: devnetAccounts.relayer.address }
const word = (n: number, fill = 'a') => `0x${n.toString(16).padStart(4, '0')}${fill.repeat(60)}` as Hex
const day = 86_400_000

test('resolved slots and reverts older than the retention go, with their txs; pending and recent ones stay; nothing runs while a cool-down still needs its revert', async () => {
  const journal = openJournal(join(dir, 'prune.sqlite'), owner)
  const slot = (nonce: number, signedAt: number) => ({
    nonce,
    orderHash: word(nonce, 'b'),
    consumer: devnetAccounts.consumer.address,
    adapter: devnetAccounts.spare.address,
    payToken: devnetAccounts.deployer.address,
    tx: { hash: word(nonce), nonce, raw: signedTx({ nonce, to: devnetAccounts.payee.address, data: '0x1234' }), kind: 'order' as const, signedAt },
  })
  const now = Date.now()
  // Nonces 0-9 sent 40 days ago, 10-11 today; 0-8 resolved (seen mined at their sending), 9 still pending.
  await journal.record([...Array.from({ length: 10 }, (_, n) => slot(n, now - 40 * day)), slot(10, now), slot(11, now)])
  journal.resolveAll(Array.from({ length: 9 }, (_, nonce) => ({ nonce, status: 'settled' as const, txHash: word(nonce) })))
  journal.resolve(10, { status: 'settled', txHash: word(10) })
  journal.addRevert({ at: now - 40 * day, consumer: devnetAccounts.consumer.address, adapter: null, payToken: null, txHash: word(99) })
  journal.addRevert({ at: now, consumer: devnetAccounts.spare.address, adapter: null, payToken: null, txHash: word(98) })
  const logger = createMemoryLogger()
  // Resolved today (a slot's age is when it was seen mined): none goes yet; the 40-day-old revert does.
  await createJournalPruning({ journal, logger, retentionMs: 30 * day, keepMs: 600_000 }).prune()
  expect(journal.slot(0)?.status).toBe('settled')
  expect(journal.reverts('consumer', devnetAccounts.consumer.address, 0, 5)).toEqual([])
  expect(journal.reverts('consumer', devnetAccounts.spare.address, 0, 5)).toHaveLength(1)
  // Seen from 41 days on, in commits of 4 slots: every resolved slot is past a 30-day retention; the pending ones stay.
  expect(await journal.prune(now + 11 * day, 4)).toEqual({ slots: 10, reverts: 1 })
  expect(journal.pending().map((each) => each.nonce)).toEqual([9, 11])
  for (const nonce of [0, 8, 10]) expect({ nonce, slot: journal.slot(nonce), txs: journal.txs(nonce) }).toEqual({ nonce, slot: undefined, txs: [] })
  expect(journal.txs(9)).toHaveLength(1)
  expect(journal.reverts('consumer', devnetAccounts.spare.address, 0, 5)).toEqual([])
  expect(logger.lines).toEqual(['journal: pruned 0 resolved slots and 1 kept revert older than 30 days (RELAYER_JOURNAL_RETENTION_DAYS)'])
  // A cool-down longer than the retention keeps its reverts.
  journal.addRevert({ at: now, consumer: devnetAccounts.payee.address, adapter: null, payToken: null, txHash: word(97) })
  await createJournalPruning({ journal, logger, retentionMs: day, keepMs: 10 * day, now: () => now + 5 * day }).prune()
  expect(journal.reverts('consumer', devnetAccounts.payee.address, 0, 5)).toHaveLength(1)
  journal.close()
})

test('a settled order pruned from the journal: a replay is answered from the Broker\'s logs, naming the settling tx, and nothing is sent', async () => {
  const relayer = await startTestRelayer(devnet)
  try {
    const request = await signed(devnet, allocationOrder(devnet))
    const first = await relayer.post(request)
    expect(first.status).toBe(200)
    const journal = relayer.relayer.context.journal
    // A replay answered by the journal gets its 200 back (its client may have lost it) until one client has had it.
    expect((await relayer.post(request)).status).toBe(422)
    expect((await journal.prune(Date.now() + 1)).slots).toBe(1)
    expect(journal.byOrder(request.orderHash as Hex)).toBeUndefined()
    const nonce = await devnet.publicClient.getTransactionCount({ address: devnetAccounts.relayer.address })
    const replay = await relayer.post(request)
    expect({ status: replay.status, body: replay.body }).toEqual({
      status: 422,
      body: { ok: false, code: 'WOULD_REVERT', message: `would revert: authorization used (already settled in tx ${first.body.txHash}); build a new order with a fresh nonce` },
    })
    expect(await devnet.publicClient.getTransactionCount({ address: devnetAccounts.relayer.address })).toBe(nonce)
    expect(await (await fetch(`${relayer.url}/broker/${request.orderHash}`)).json()).toMatchObject({ status: 'settled', txHash: first.body.txHash })
  } finally {
    await relayer.stop()
  }
})
