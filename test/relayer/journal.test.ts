// The journal on its own: what is written comes back after a reopen (a restart),
// a batch is written whole or not at all (one commit), and one live process holds it.
import { afterAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Address, Hex } from 'viem'
import { devnetAccounts } from '../../src/devnet/index.ts'
import { createRelayer, readRelayerConfig } from '../../src/relayer/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { signedTx } from '../../scripts/lib/index.ts'
import { main } from '../../src/cli/index.ts'
import { JournalLockedError, JournalMismatchError, JournalVersionError, journalVersion, type NewSlot, openJournal } from '../../src/relayer/journal/index.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-journal-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const owner = { chainId: 31337, address: devnetAccounts.relayer.address }
const word = (n: number, fill = 'a') => `0x${n.toString(16).padStart(4, '0')}${fill.repeat(60)}` as Hex

/** A relayer's configuration with this journal and no chain behind it (what it says at start needs none). */
const chainlessConfig = (journal: string) =>
  readRelayerConfig({
    RELAYER_PK: devnetAccounts.relayer.privateKey,
    RELAYER_CHAIN_ID: '31337',
    RELAYER_RPC_URL: 'http://127.0.0.1:1',
    RELAYER_BROKER: devnetAccounts.spare.address,
    RELAYER_DB: journal,
  })

function slot(nonce: number): NewSlot {
  return {
    nonce,
    orderHash: word(nonce, 'b'),
    consumer: devnetAccounts.consumer.address,
    adapter: devnetAccounts.spare.address,
    payToken: devnetAccounts.deployer.address,
    tx: { hash: word(nonce), nonce, raw: signedTx({ nonce, to: devnetAccounts.payee.address, data: '0x1234' }), kind: 'order', signedAt: 1_700_000_000_000 + nonce },
  }
}

test('a batch written, resolved in part and reopened: every slot and tx comes back as it was', async () => {
  const path = join(dir, 'reload.sqlite')
  const journal = openJournal(path, owner)
  await journal.record([slot(5), slot(6), slot(7)])
  journal.resolve(5, { status: 'settled', txHash: word(5), blockNumber: 12n, outcome: '{"ok":true}' })
  journal.answered(5, 'OK')
  const replacement = signedTx({ nonce: 6, to: devnetAccounts.payee.address, data: '0x1234', maxFeePerGas: 4_000_000_000n, maxPriorityFeePerGas: 2_000_000_000n })
  await journal.replace({ hash: word(6, 'c'), nonce: 6, raw: replacement, kind: 'replacement', signedAt: 1_700_000_001_000 })
  journal.close()

  const again = openJournal(path, owner)
  expect(again.nextNonce()).toBe(8)
  expect(again.pending().map((each) => [each.nonce, each.txHash])).toEqual([[6, word(6, 'c')], [7, word(7)]])
  expect(again.byOrder(word(5, 'b'))).toEqual({
    nonce: 5, orderHash: word(5, 'b'), consumer: devnetAccounts.consumer.address, adapter: devnetAccounts.spare.address, payToken: devnetAccounts.deployer.address, to: devnetAccounts.payee.address.toLowerCase() as Hex,
    data: '0x1234', gas: 200_000n, status: 'settled', txHash: word(5), blockNumber: 12n, outcome: '{"ok":true}', answer: 'OK', sentAt: 1_700_000_000_005,
    feeAmount: null, feeValueWei: null, spentWei: null, minedAt: expect.any(Number), blockHash: null, confirmed: false,
  })
  expect(again.txs(6).map((tx) => [tx.hash, tx.kind, tx.maxFeePerGas, tx.maxPriorityFeePerGas])).toEqual([
    [word(6), 'order', 3_000_000_000n, 1_000_000_000n],
    [word(6, 'c'), 'replacement', 4_000_000_000n, 2_000_000_000n],
  ])
  expect(again.tx(word(6, 'c'))?.raw).toBe(replacement)
  again.close()
})

test('a batch is one commit: a batch with a bad entry writes nothing', async () => {
  const journal = openJournal(join(dir, 'batch.sqlite'), owner)
  await journal.record([slot(1)])
  expect(() => journal.record([slot(2), slot(3), slot(1)])).toThrow()
  expect(journal.pending().map((each) => each.nonce)).toEqual([1])
  await journal.record([slot(2), slot(3)])
  expect(journal.pending().map((each) => each.nonce)).toEqual([1, 2, 3])
  // The node refused 2 and 3 outright: they are forgotten and their nonces free again.
  journal.reject([2, 3])
  expect(journal.nextNonce()).toBe(2)
  expect(journal.txs(2)).toEqual([])
  // A slot no longer pending is kept, and so are its txs, which hold its call.
  journal.resolve(1, { status: 'settled', txHash: word(1), blockNumber: 4n })
  journal.reject([1])
  expect(journal.slot(1)).toMatchObject({ status: 'settled', data: '0x1234' })
  expect(journal.txs(1)).toHaveLength(1)
  journal.close()
})

test('a journal of another chain or key is refused', () => {
  const path = join(dir, 'owner.sqlite')
  openJournal(path, owner).close()
  expect(() => openJournal(path, { ...owner, chainId: 1 })).toThrow(JournalMismatchError)
})

test('a second live process is refused, naming the holder; the kernel frees the lock of a killed holder; a holder file naming another host without a lock is no lock', async () => {
  const path = join(dir, 'lock.sqlite')
  // The holder drops its journal and collects garbage (twice, a finalizer's turn between) before it says it holds the lock.
  const holder = Bun.spawn(
    [process.execPath, '-e', `const { openJournal } = await import(${JSON.stringify(join(import.meta.dir, '../../src/relayer/journal/index.ts'))}); openJournal(${JSON.stringify(path)}, { chainId: 31337, address: '${owner.address}' }); Bun.gc(true); await Bun.sleep(20); Bun.gc(true); console.log('held'); setInterval(() => {}, 1000)`],
    { stdout: 'pipe', stderr: 'pipe' },
  )
  try {
    // Its stdout up to 'held' (in as many chunks as it comes), or, when it ends first, why.
    let said = ''
    const reader = holder.stdout.getReader()
    while (!said.includes('held\n')) {
      const chunk = await reader.read()
      if (chunk.done) throw new Error(`the holder process ended (exit ${await holder.exited}) without taking the lock: ${said}${await new Response(holder.stderr).text()}`)
      said += new TextDecoder().decode(chunk.value)
    }
    expect(said).toBe('held\n')
    let refusal: unknown
    try {
      openJournal(path, owner)
    } catch (error) {
      refusal = error
    }
    expect(refusal).toBeInstanceOf(JournalLockedError)
    expect((refusal as Error).message).toStartWith(`RELAYER_DB ${path} is in use by relayer process ${holder.pid} on ${hostname()} (since `)
    expect((refusal as Error).message).toEndWith('); run one relayer process per gas key, or stop that one first')
  } finally {
    holder.kill('SIGKILL')
    await holder.exited
  }
  // kill -9: the kernel released its lock with the process (its holder file stays behind, and means nothing).
  expect(existsSync(`${path}.holder`)).toBe(true)
  const journal = openJournal(path, owner)
  journal.close()
  // A container restarted under a new hostname, or a pid another host reused: only the lock counts.
  writeFileSync(`${path}.holder`, JSON.stringify({ pid: process.pid, host: 'another-host', since: 1 }))
  const again = openJournal(path, owner)
  // While held, a second open in this very process is refused too: the lock is the file's, not the pid's.
  expect(() => openJournal(path, owner)).toThrow(JournalLockedError)
  again.close()
  expect(existsSync(`${path}.holder`)).toBe(false)
})

test('RELAYER_DB=:memory: keeps nothing and says so at start', () => {
  const logger = createMemoryLogger()
  const config = chainlessConfig(':memory:')
  expect(config.journalPath).toBe(':memory:')
  const relayer = createRelayer(config, { logger, version: 'test' })
  expect(logger.lines).toEqual([
    'warn: RELAYER_DB=:memory: the journal is not kept on disk; after a restart this relayer cannot see the transactions it left pending (their orders could be sent again)',
  ])
  relayer.context.journal.close()
})

test('durable writes keep one descriptor on the WAL across checkpoints, released at close', async () => {
  const path = join(dir, 'descriptor.sqlite')
  // Descriptors of this process open on the WAL (SQLite's own, and the journal's for its syncs).
  const onWal = () =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === `${path}-wal`
      } catch {
        return false
      }
    }).length
  const journal = openJournal(path, owner)
  await journal.record([slot(1)])
  const checkpointer = new Database(path)
  // A checkpoint that truncates the WAL: SQLite writes it again from the start, same file.
  const checkpoint = () => checkpointer.query('PRAGMA wal_checkpoint(TRUNCATE)').all()
  checkpoint()
  await journal.record([slot(2)])
  const whileOpen = onWal()
  for (let nonce = 3; nonce <= 6; nonce++) {
    checkpoint()
    await journal.record([slot(nonce)])
  }
  expect(onWal()).toBe(whileOpen)
  expect(journal.pending().map((each) => each.nonce)).toEqual([1, 2, 3, 4, 5, 6])
  checkpointer.close()
  journal.close()
  expect(onWal()).toBe(0)
  const again = openJournal(path, owner)
  expect(again.nextNonce()).toBe(7)
  again.close()
})

/** How many commits other connections made since `before` (SQLite's data_version, as seen from a second connection). */
function commitsSeenBy(reader: Database) {
  const version = () => reader.query<{ data_version: number }, []>('PRAGMA data_version').get()!.data_version
  const start = version()
  return () => version() - start
}

test('what one look found mined is written in one commit; answer codes ride the next commit, or one of their own after answerDelayMs, and are read back at once', async () => {
  const path = join(dir, 'commits.sqlite')
  const journal = openJournal(path, owner, { answerDelayMs: 50 })
  await journal.record([slot(1), slot(2), slot(3), slot(4), slot(5)])
  const reader = new Database(path, { readonly: true })
  const commits = commitsSeenBy(reader)
  journal.resolveAll([
    { nonce: 1, status: 'settled', txHash: word(1), blockNumber: 9n, outcome: '{"ok":true}' },
    { nonce: 2, status: 'reverted', txHash: word(2), blockNumber: 9n, outcome: '{"message":"m"}' },
    { nonce: 3, status: 'settled', txHash: word(3), blockNumber: 10n },
  ])
  expect(commits()).toBe(1)
  expect(journal.pending().map((each) => each.nonce)).toEqual([4, 5])
  expect(journal.lastMinedNonce()).toBe(3)

  journal.answered(1, 'OK')
  journal.answered(2, 'WOULD_REVERT')
  const answerOf = (nonce: number) => reader.query<{ answer: string | null }, [number]>('SELECT answer FROM slots WHERE nonce = ?').get(nonce)!.answer
  // Not written yet; this process reads them at once all the same, and a read writes nothing.
  expect(answerOf(2)).toBeNull()
  expect(journal.slot(2)?.answer).toBe('WOULD_REVERT')
  expect(journal.byOrder(word(1, 'b'))?.answer).toBe('OK')
  expect(commits()).toBe(1)
  // The next commit the journal makes anyway carries them.
  journal.resolveAll([{ nonce: 4, status: 'settled', txHash: word(4), blockNumber: 11n }])
  expect(commits()).toBe(2)
  expect([answerOf(1), answerOf(2)]).toEqual(['OK', 'WOULD_REVERT'])

  // With no other commit, they get one of their own: once for all the answers of the delay.
  journal.answered(3, 'OK')
  journal.answered(3, 'UPSTREAM_RPC')
  journal.answered(5, 'OK')
  expect(journal.pending()[0]?.answer).toBe('OK')
  await waitFor('the answers written on their own', () => commits() >= 3, 5_000, 5)
  expect(commits()).toBe(3)
  expect([answerOf(3), answerOf(5)]).toEqual(['UPSTREAM_RPC', 'OK'])

  // What waits at close is written then.
  journal.answered(4, 'OK')
  journal.close()
  expect(answerOf(4)).toBe('OK')
  reader.close()
})

test('lastMinedNonce is the highest resolved nonce below the pending ones, among many', async () => {
  const journal = openJournal(':memory:', owner)
  for (let base = 0; base < 3_000; base += 500) await journal.record(Array.from({ length: 500 }, (_, i) => slot(base + i)))
  expect(journal.lastMinedNonce()).toBeUndefined()
  journal.resolveAll(Array.from({ length: 2_990 }, (_, nonce) => ({ nonce, status: 'settled' as const })))
  expect(journal.lastMinedNonce()).toBe(2_989)
  journal.resolve(2_995, { status: 'filled' })
  expect(journal.lastMinedNonce()).toBe(2_995)
  journal.close()
})

test('an answer code the journal cannot write is kept, not thrown out of the event loop nor into a batch, and written once it can', async () => {
  const path = join(dir, 'answer-failure.sqlite')
  const journal = openJournal(path, owner, { answerDelayMs: 20 })
  await journal.record([slot(1)])
  // A second connection makes every write of an answer fail, as a full disk would.
  const other = new Database(path)
  other.exec("CREATE TRIGGER refuse_answers BEFORE UPDATE OF answer ON slots BEGIN SELECT RAISE(ABORT, 'disk full'); END")
  const answerOf = () => other.query<{ answer: string | null }, []>('SELECT answer FROM slots WHERE nonce = 1').get()?.answer
  const uncaught: unknown[] = []
  const onError = (error: unknown) => uncaught.push(error)
  process.on('uncaughtException', onError)
  try {
    journal.answered(1, 'OK')
    // Long enough for the write of its own to have been tried and refused a few times.
    const answeredAt = Date.now()
    await waitFor('five answer delays to pass', () => Date.now() >= answeredAt + 100, 5_000, 5)
    expect(uncaught).toEqual([])
    expect(journal.slot(1)?.answer).toBe('OK')
    // A batch that would carry it is written all the same, without it.
    await journal.record([slot(2)])
    expect(journal.slot(2)?.status).toBe('pending')
    expect(other.query<{ n: number }, []>('SELECT COUNT(*) AS n FROM slots').get()?.n).toBe(2)
    expect(answerOf()).toBeNull()
    other.exec('DROP TRIGGER refuse_answers')
    await waitFor('the answer written once it can be', () => answerOf() === 'OK', 5_000, 5)
    expect(journal.slot(1)?.answer).toBe('OK')
  } finally {
    process.off('uncaughtException', onError)
    other.close()
    journal.close()
  }
})

test('byOrder is the latest slot that carries the order, among several, and undefined for an order it never carried', async () => {
  const journal = openJournal(':memory:', owner)
  const order = word(7, 'c')
  await journal.record([{ ...slot(3), orderHash: order }, slot(4), { ...slot(5), orderHash: order }, slot(6)])
  journal.resolve(3, { status: 'filled' })
  await journal.record([{ ...slot(7), orderHash: order }])
  expect(journal.byOrder(order)?.nonce).toBe(7)
  journal.reject([7])
  expect(journal.byOrder(order)?.nonce).toBe(5)
  expect(journal.byOrder(word(8, 'c'))).toBeUndefined()
  journal.close()
})

test("a dropped slot's answer code waiting to be written never lands on the next slot at its nonce", async () => {
  const path = join(dir, 'reused-nonce.sqlite')
  const journal = openJournal(path, owner, { answerDelayMs: 10 })
  await journal.record([slot(1)])
  journal.answered(1, 'UPSTREAM_RPC')
  journal.reject([1])
  await journal.record([{ ...slot(1), orderHash: word(1, 'd') }])
  expect(journal.slot(1)?.answer).toBeNull()
  journal.close()
  const reader = new Database(path, { readonly: true })
  expect(reader.query<{ answer: string | null }, []>('SELECT answer FROM slots WHERE nonce = 1').get()?.answer).toBeNull()
  reader.close()
})

test('slots and txsByHash read many at once: what the journal holds, by nonce and by lower-case hash, with answers not yet written', async () => {
  const journal = openJournal(':memory:', owner)
  await journal.record([slot(1), slot(2), slot(3)])
  journal.answered(2, 'OK')
  const slots = journal.slots([3, 2, 9])
  expect([...slots.keys()].sort()).toEqual([2, 3])
  expect(slots.get(2)).toEqual({ ...journal.slot(2)!, answer: 'OK' })
  expect(slots.get(3)?.orderHash).toBe(word(3, 'b'))
  expect(journal.slots([]).size).toBe(0)
  const txs = journal.txsByHash([word(1).toUpperCase().replace('0X', '0x') as Hex, word(3), word(9)])
  expect([...txs.keys()]).toEqual(expect.arrayContaining([word(1), word(3)]))
  expect(txs.size).toBe(2)
  expect(txs.get(word(3))).toEqual(journal.tx(word(3))!)
  journal.close()
})

test("a slot's call and a tx's fees are read from its signed bytes: a filler's becomes the slot's, and a resolution to an older tx gives back that tx's call", async () => {
  const journal = openJournal(':memory:', owner)
  await journal.record([slot(4)])
  const order = journal.slot(4)!
  expect({ to: order.to, data: order.data, gas: order.gas }).toEqual({ to: devnetAccounts.payee.address.toLowerCase() as Hex, data: '0x1234', gas: 200_000n })
  const filler = signedTx({ nonce: 4, to: owner.address, gas: 21_000n, maxFeePerGas: 9_000_000_000n })
  await journal.replace({ hash: word(4, 'f'), nonce: 4, raw: filler, kind: 'filler', signedAt: 1_700_000_002_000 })
  expect(journal.slot(4)).toMatchObject({ to: owner.address.toLowerCase(), data: '0x', gas: 21_000n, txHash: word(4, 'f') })
  expect(journal.tx(word(4, 'f'))).toMatchObject({ maxFeePerGas: 9_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n })
  // Every tx at a pending nonce may be mined: the order's callee and the filler's are both watched.
  expect(journal.pendingCallees().sort()).toEqual([devnetAccounts.payee.address, devnetAccounts.spare.address, owner.address].map((address) => address.toLowerCase() as Hex).sort())
  // The order's tx was mined after all (an upper-case hash from a node still finds it).
  journal.resolve(4, { status: 'reverted', txHash: word(4).toUpperCase().replace('0X', '0x') as Hex, blockNumber: 3n })
  expect(journal.slot(4)).toMatchObject({ status: 'reverted', txHash: word(4), to: devnetAccounts.payee.address.toLowerCase(), data: '0x1234', gas: 200_000n })
  journal.close()
})

test('the pending callees follow the pending txs from call to call: a replacement added, a resolved nonce dropped, and a reopened journal read from its bytes', async () => {
  const path = join(dir, 'callees.sqlite')
  const lower = (...addresses: Address[]) => addresses.map((address) => address.toLowerCase() as Hex).sort()
  const journal = openJournal(path, owner)
  await journal.record([slot(1), slot(2)])
  expect(journal.pendingCallees().sort()).toEqual(lower(devnetAccounts.payee.address, devnetAccounts.spare.address))
  await journal.replace({ hash: word(2, 'f'), nonce: 2, raw: signedTx({ nonce: 2, to: owner.address, gas: 21_000n }), kind: 'filler', signedAt: 1_700_000_003_000 })
  expect(journal.pendingCallees().sort()).toEqual(lower(devnetAccounts.payee.address, devnetAccounts.spare.address, owner.address))
  journal.resolve(2, { status: 'filled', txHash: word(2, 'f'), blockNumber: 4n })
  journal.resolve(1, { status: 'settled', txHash: word(1), blockNumber: 4n })
  expect(journal.pendingCallees()).toEqual([])
  await journal.record([{ ...slot(3), adapter: null, tx: { ...slot(3).tx, raw: signedTx({ nonce: 3, to: devnetAccounts.consumer.address }) } }])
  expect(journal.pendingCallees()).toEqual(lower(devnetAccounts.consumer.address))
  journal.close()
  const reopened = openJournal(path, owner)
  expect(reopened.pendingCallees()).toEqual(lower(devnetAccounts.consumer.address))
  reopened.close()
})

test('a tx that is not a signed EIP-1559 transaction, or is signed at another nonce, is refused and nothing of its batch is written', async () => {
  const journal = openJournal(':memory:', owner)
  const garbled = { ...slot(2), tx: { ...slot(2).tx, raw: '0x02f8' as Hex } }
  expect(() => journal.record([slot(1), garbled])).toThrow('parseEip1559: not a signed EIP-1559 transaction')
  const elsewhere = { ...slot(2), tx: { ...slot(2).tx, raw: slot(3).tx.raw } }
  expect(() => journal.record([slot(1), elsewhere])).toThrow(`journal: tx ${word(2)} is signed at nonce 3, not 2`)
  expect(journal.nextNonce()).toBeUndefined()
  await journal.record([slot(1)])
  expect(() => journal.replace({ hash: word(1, 'c'), nonce: 1, raw: '0x02c0', kind: 'replacement', signedAt: 1 })).toThrow('parseEip1559')
  expect(journal.slot(1)?.txHash).toBe(word(1))
  expect(journal.txs(1)).toHaveLength(1)
  journal.close()
})

/** A journal file at schema version 0: the call and the fees copied beside the signed tx, cool-downs kept as their ends. */
function writeEarlierJournal(path: string) {
  const earlier = new Database(path, { create: true, strict: true })
  earlier.exec(`
    PRAGMA journal_mode = WAL;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE slots (nonce INTEGER PRIMARY KEY, order_hash TEXT, consumer TEXT, adapter TEXT, pay_token TEXT, to_address TEXT NOT NULL, data TEXT NOT NULL, gas TEXT NOT NULL,
      status TEXT NOT NULL, tx_hash TEXT NOT NULL, block_number INTEGER, outcome TEXT, answer TEXT, sent_at INTEGER NOT NULL);
    CREATE INDEX slots_by_order ON slots (order_hash);
    CREATE INDEX slots_by_status ON slots (status);
    CREATE TABLE txs (hash TEXT PRIMARY KEY, nonce INTEGER NOT NULL, raw TEXT NOT NULL, max_fee_per_gas TEXT NOT NULL, max_priority_fee_per_gas TEXT NOT NULL, kind TEXT NOT NULL, signed_at INTEGER NOT NULL);
    CREATE INDEX txs_by_nonce ON txs (nonce);
    CREATE TABLE cooldowns (consumer TEXT PRIMARY KEY, until INTEGER NOT NULL, tx_hash TEXT NOT NULL);
  `)
  earlier.query('INSERT INTO meta (key, value) VALUES (?, ?)').run('owner', `${owner.chainId}:${owner.address.toLowerCase()}`)
  const to = devnetAccounts.payee.address
  const insertSlot = earlier.query('INSERT INTO slots VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
  const insertTx = earlier.query('INSERT INTO txs VALUES (?, ?, ?, ?, ?, ?, ?)')
  // Its mined tx's hash as a node might have given it, in upper case.
  insertSlot.run(1, word(1, 'b'), devnetAccounts.consumer.address, devnetAccounts.spare.address, null, to, '0x1234', '200000', 'settled', word(1).toUpperCase().replace('0X', '0x'), 7, '{"ok":true}', 'OK', 10)
  insertTx.run(word(1), 1, signedTx({ nonce: 1, to, data: '0x1234' }), '3000000000', '1000000000', 'order', 10)
  insertSlot.run(2, word(2, 'b'), null, null, null, to, '0x5678', '300000', 'pending', word(2, 'c'), null, null, null, 20)
  insertTx.run(word(2), 2, signedTx({ nonce: 2, to, data: '0x5678', gas: 300_000n }), '3000000000', '1000000000', 'order', 20)
  insertTx.run(word(2, 'c'), 2, signedTx({ nonce: 2, to, data: '0x5678', gas: 300_000n, maxFeePerGas: 4_000_000_000n }), '4000000000', '1000000000', 'replacement', 21)
  earlier.query('INSERT INTO cooldowns VALUES (?, ?, ?)').run(devnetAccounts.consumer.address.toLowerCase(), 1_700_000_600_000, word(9))
  earlier.close()
}

test('a journal at schema version 0 (the call and the fees copied beside the signed tx) opens: the copies are dropped, the economics columns added, the cool-downs kept as reverts, and every slot and tx reads as before', async () => {
  const path = join(dir, 'earlier-version.sqlite')
  writeEarlierJournal(path)
  const to = devnetAccounts.payee.address

  expect(userVersion(path)).toBe(0)
  const journal = openJournal(path, owner)
  expect(journal.upgraded).toEqual([
    'slots.to_address dropped', 'slots.data dropped', 'slots.gas dropped', 'txs.max_fee_per_gas dropped', 'txs.max_priority_fee_per_gas dropped',
    'slots.fee_amount added', 'slots.fee_value_wei added', 'slots.spent_wei added', 'slots.mined_at added', 'cooldowns moved to reverts', 'slots.block_hash added', 'slots.confirmed added',
  ])
  expect(journal.reverts('consumer', devnetAccounts.consumer.address, 0, 5)).toEqual([
    { at: 1_700_000_000_000, consumer: devnetAccounts.consumer.address.toLowerCase() as Hex, adapter: null, payToken: null, txHash: word(9) },
  ])
  expect(journal.slot(1)).toMatchObject({ status: 'settled', to: to.toLowerCase(), data: '0x1234', gas: 200_000n, txHash: word(1), blockNumber: 7n, answer: 'OK' })
  expect(journal.pending()).toMatchObject([{ nonce: 2, to: to.toLowerCase(), data: '0x5678', gas: 300_000n, txHash: word(2, 'c') }])
  expect(journal.txs(2).map((tx) => tx.maxFeePerGas)).toEqual([3_000_000_000n, 4_000_000_000n])
  expect(journal.nextNonce()).toBe(3)
  await journal.record([slot(3)])
  journal.close()
  const reader = new Database(path, { readonly: true })
  const columns = (table: string) => reader.query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${table}')`).all().map(({ name }) => name)
  expect(columns('slots')).toEqual(['nonce', 'order_hash', 'consumer', 'adapter', 'pay_token', 'status', 'tx_hash', 'block_number', 'outcome', 'answer', 'sent_at', 'fee_amount', 'fee_value_wei', 'spent_wei', 'mined_at', 'block_hash', 'confirmed'])
  expect(columns('txs')).toEqual(['hash', 'nonce', 'raw', 'kind', 'signed_at'])
  reader.close()
  expect(userVersion(path)).toBe(journalVersion)
  // Opened again: nothing left to drop.
  const again = openJournal(path, owner)
  expect(again.upgraded).toEqual([])
  again.close()
})

test('a journal at schema version 3 opens: its mined slots count as confirmed, its pending ones are watched for reorgs once mined', async () => {
  const path = join(dir, 'version-3.sqlite')
  const writer = openJournal(path, owner)
  await writer.record([slot(0), slot(1)])
  writer.resolve(0, { status: 'settled', txHash: word(0), blockNumber: 7n })
  writer.close()
  // What version 3 wrote: the slots without their block's hash and confirmation.
  const downgrade = new Database(path)
  downgrade.exec('DROP INDEX slots_unconfirmed; ALTER TABLE slots DROP COLUMN block_hash; ALTER TABLE slots DROP COLUMN confirmed; PRAGMA user_version = 3')
  downgrade.close()

  const journal = openJournal(path, owner)
  expect(journal.upgraded).toEqual(['slots.block_hash added', 'slots.confirmed added'])
  expect(journal.byOrder(word(0, 'b'))).toMatchObject({ status: 'settled', blockNumber: 7n, blockHash: null, confirmed: true })
  expect(journal.byOrder(word(1, 'b'))).toMatchObject({ status: 'pending', blockHash: null, confirmed: false })
  expect(journal.unconfirmedCount()).toBe(0)
  journal.resolve(1, { status: 'settled', txHash: word(1), blockNumber: 8n, blockHash: word(8, 'c') })
  expect(journal.unconfirmed(8n)).toEqual([{ nonce: 1, blockNumber: 8n, blockHash: word(8, 'c'), txHash: word(1) }])
  journal.close()
  expect(userVersion(path)).toBe(journalVersion)
})

test('the relayer says at start that it upgraded a journal of an earlier schema version, and what changed', () => {
  const path = join(dir, 'earlier-version-relayer.sqlite')
  writeEarlierJournal(path)
  const logger = createMemoryLogger()
  const config = chainlessConfig(path)
  const relayer = createRelayer(config, { logger, version: 'test' })
  expect(logger.lines).toEqual([
    `RELAYER_DB ${path}: upgraded to journal version 4 (slots.to_address dropped, slots.data dropped, slots.gas dropped, txs.max_fee_per_gas dropped, txs.max_priority_fee_per_gas dropped, slots.fee_amount added, slots.fee_value_wei added, slots.spent_wei added, slots.mined_at added, cooldowns moved to reverts, slots.block_hash added, slots.confirmed added); a build of order-relay that reads only a lower journal version refuses it`,
  ])
  relayer.context.journal.close()
})

/** SQLite's `user_version` of a journal file, read without opening it as a journal. */
function userVersion(path: string): number {
  const reader = new Database(path, { readonly: true })
  try {
    return reader.query<{ user_version: number }, []>('PRAGMA user_version').get()!.user_version
  } finally {
    reader.close()
  }
}

test('a new journal is marked with its version; one marked by a later version is refused, by openJournal and by `order-relay relayer`, and left as it was', async () => {
  const fresh = join(dir, 'versioned.sqlite')
  openJournal(fresh, owner).close()
  expect(journalVersion).toBe(4)
  expect(userVersion(fresh)).toBe(journalVersion)

  // A later version's journal: a schema this version does not know.
  const later = join(dir, 'later-version.sqlite')
  const writer = new Database(later, { create: true })
  writer.exec("PRAGMA journal_mode = WAL; CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); CREATE TABLE slots2 (nonce INTEGER PRIMARY KEY, body BLOB); PRAGMA user_version = 5")
  writer.query("INSERT INTO meta (key, value) VALUES ('owner', ?)").run(`${owner.chainId}:${owner.address.toLowerCase()}`)
  writer.close()
  const tables = () => {
    const reader = new Database(later, { readonly: true })
    try {
      return { tables: reader.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all().map(({ name }) => name), meta: reader.query('SELECT * FROM meta').all() }
    } finally {
      reader.close()
    }
  }
  const before = tables()
  const message = `RELAYER_DB ${later} was written by a later order-relay (journal version 5; this one reads up to 4); run that later version on it, or give this one a journal of its own after checking the gas key's pending txs on chain`
  expect(() => openJournal(later, owner)).toThrow(new JournalVersionError(message))
  expect(tables()).toEqual(before)
  expect(userVersion(later)).toBe(5)

  const err: string[] = []
  const code = await main(['relayer'], {
    env: { RELAYER_PK: devnetAccounts.relayer.privateKey, RELAYER_CHAIN_ID: '31337', RELAYER_RPC_URL: 'http://127.0.0.1:1', RELAYER_BROKER: devnetAccounts.spare.address, RELAYER_DB: later },
    out: () => {},
    err: (line) => err.push(line),
    signal: new AbortController().signal,
  })
  expect({ code, err }).toEqual({ code: 1, err: [`order-relay relayer: ${message}`] })
  expect(tables()).toEqual(before)
})

test('the reads a receipt watcher makes on every look go through an index, not a scan of every slot', () => {
  const database = new Database(':memory:', { strict: true })
  openJournal(':memory:', owner, { database })
  const plan = (sql: string) => database.query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${sql}`).all().map((row) => row.detail)
  // What readCosts asks after every look: slots mined whose cost is not known yet.
  expect(plan("SELECT nonce, tx_hash FROM slots WHERE spent_wei IS NULL AND mined_at IS NOT NULL AND status != 'foreign' ORDER BY nonce LIMIT 256")).toEqual(['SCAN slots USING INDEX slots_uncosted'])
  expect(plan("SELECT COUNT(*) AS n FROM slots WHERE status = 'pending'")).toEqual(['SEARCH slots USING COVERING INDEX slots_by_status (status=?)'])
  database.close()
})

test('reverts since a time: none when none was recorded since, a revert added later is found, a reopened journal knows its newest, and a prune keeps the newest found', async () => {
  const path = join(dir, 'reverts-since.sqlite')
  const consumer = devnetAccounts.consumer.address
  const journal = openJournal(path, owner)
  expect(journal.reverts('consumer', consumer, 0, 5)).toEqual([])
  journal.addRevert({ at: 1_000, consumer, adapter: null, payToken: null, txHash: word(1) })
  journal.addRevert({ at: 3_000, consumer, adapter: devnetAccounts.spare.address, payToken: null, txHash: word(3) })
  const lower = consumer.toLowerCase() as Address
  const third = { at: 3_000, consumer: lower, adapter: devnetAccounts.spare.address.toLowerCase() as Address, payToken: null, txHash: word(3) }
  expect(journal.reverts('consumer', consumer, 999, 5)).toEqual([third, { at: 1_000, consumer: lower, adapter: null, payToken: null, txHash: word(1) }])
  expect(journal.reverts('consumer', consumer, 2_999, 5)).toEqual([third])
  expect(journal.reverts('consumer', consumer, 3_000, 5)).toEqual([])
  expect(journal.reverts('adapter', devnetAccounts.spare.address, 3_000, 5)).toEqual([])
  journal.close()

  const again = openJournal(path, owner)
  expect(again.reverts('adapter', devnetAccounts.spare.address, 2_999, 5)).toEqual([third])
  expect(again.reverts('consumer', consumer, 3_000, 5)).toEqual([])
  // A prune takes the old ones; the newest kept is still found.
  expect(await again.prune(2_000)).toEqual({ slots: 0, reverts: 1 })
  expect(again.reverts('consumer', consumer, 0, 5)).toEqual([third])
  again.addRevert({ at: 5_000, consumer, adapter: null, payToken: null, txHash: word(5) })
  expect(again.reverts('consumer', consumer, 3_000, 5)).toEqual([{ at: 5_000, consumer: lower, adapter: null, payToken: null, txHash: word(5) }])
  again.close()
})
