import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Hash } from 'viem'
import { openSqliteStore, type StoredEvent } from '../../src/indexer/store/index.ts'

const dir = mkdtempSync(join(tmpdir(), 'indexer-store-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const identity = { chainId: 31337, addresses: ['0x0000000000000000000000000000000000000001'], deployedAt: 1n }
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hash
/** What load() answers: the events and, byte for byte, their JSON. */
const state = (checkpoint: { block: bigint; hash: Hash } | undefined, truncated: boolean, events: StoredEvent[]) => ({
  checkpoint,
  truncated,
  events: events.map((e) => e.event),
  eventsJson: JSON.stringify(events.map((e) => e.event)),
})
const stored = (block: number, logIndex = 0): StoredEvent => ({
  event: { name: 'LienProposed', address: '0x0000000000000000000000000000000000000001', blockNumber: String(block), logIndex, transactionHash: hash(1000 + block), fields: { lienId: hash(block), note: 'a "quoted" \\ value' } },
  blockHash: hash(block),
})

test('commits survive reopening; retention keeps the newest events and marks truncated; rewind drops above the fork', async () => {
  const path = join(dir, 'index.sqlite')
  const store = openSqliteStore({ path, identity, retention: 3, hashWindow: 2 })
  expect(await store.load(10)).toEqual(state(undefined, false, []))
  await store.commit({ events: [stored(2), stored(2, 1)], hashes: [], checkpoint: { block: 5n, hash: hash(5) }, truncated: false })
  await store.commit({ events: [stored(7)], hashes: [[6n, hash(6)]], checkpoint: { block: 8n, hash: hash(8) }, truncated: false })
  expect(await store.load(10)).toEqual(state({ block: 8n, hash: hash(8) }, false, [stored(2), stored(2, 1), stored(7)]))
  await store.commit({ events: [stored(9)], hashes: [], checkpoint: { block: 9n, hash: hash(9) }, truncated: false })
  await store.close()

  const reopened = openSqliteStore({ path, identity, retention: 3, hashWindow: 2 })
  const loaded = await reopened.load(10)
  expect(loaded).toEqual(state({ block: 9n, hash: hash(9) }, true, [stored(2, 1), stored(7), stored(9)]))
  expect((await reopened.load(2)).events).toEqual([stored(7).event, stored(9).event])
  // Known hashes: the window (blocks above 9 - 2) and every block an event came from.
  expect(await reopened.knownHashes(9n)).toEqual([[2n, hash(2)], [7n, hash(7)], [8n, hash(8)], [9n, hash(9)]])

  expect(await reopened.rewind({ block: 7n, hash: hash(7) })).toBe(1)
  expect(await reopened.load(10)).toEqual(state({ block: 7n, hash: hash(7) }, true, [stored(2, 1), stored(7)]))
  expect(await reopened.rewind(undefined)).toBe(2)
  expect((await reopened.load(10)).checkpoint).toBeUndefined()
  await reopened.close()
})

test(':memory: keeps nothing between opens', async () => {
  const first = openSqliteStore({ path: ':memory:', identity, retention: 10, hashWindow: 128 })
  await first.commit({ events: [stored(3)], hashes: [], checkpoint: { block: 3n, hash: hash(3) }, truncated: false })
  await first.close()
  const second = openSqliteStore({ path: ':memory:', identity, retention: 10, hashWindow: 128 })
  expect(await second.load(10)).toEqual(state(undefined, false, []))
  await second.close()
})
