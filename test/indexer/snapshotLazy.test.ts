// A restart serves the stored events' JSON as it is: the snapshot parses the events
// into objects only when a filtered query or a metric reads them, and then they are
// the events of that snapshot's version even if the log moved on since.
import { expect, test } from 'bun:test'
import { readIndexerConfig } from '../../src/indexer/index.ts'
import { createSnapshotCache } from '../../src/indexer/snapshot.ts'
import { createEventLog } from '../../src/indexer/sync/eventLog.ts'
import type { SyncStatus } from '../../src/indexer/sync/syncer.ts'
import type { ActivityEvent } from '../../src/wire/index.ts'

const event = (block: number): ActivityEvent => ({
  name: 'LienProposed',
  address: '0x0000000000000000000000000000000000000001',
  blockNumber: String(block),
  logIndex: 0,
  transactionHash: `0x${'ab'.repeat(32)}`,
  fields: { lienId: String(block) },
})

test('a snapshot of restored events is served from their JSON, and parses them only when they are read', () => {
  const config = readIndexerConfig(
    {},
    { chainId: 31337, rpcUrl: 'http://127.0.0.1:9', addresses: ['0x0000000000000000000000000000000000000001', '0x0000000000000000000000000000000000000002', '0x0000000000000000000000000000000000000003', '0x0000000000000000000000000000000000000004'], deployedAt: 0n, host: '127.0.0.1', port: 0, pollMs: 1, retention: 10, db: ':memory:' },
  )
  const log = createEventLog(10)
  const stored = [event(1), event(2)]
  let parses = 0
  const json = JSON.stringify(stored)
  log.restore(() => (parses++, JSON.parse(json) as ActivityEvent[]), stored.length, false, json)
  const status = (): SyncStatus => ({
    indexedThrough: 5n,
    head: 5n,
    headReadAt: 0,
    get events() {
      return log.events
    },
    eventCount: log.count,
    eventsVersion: log.version,
    eventsJson: log.json,
    truncated: log.truncated,
    generation: log.version,
    caughtUp: true,
    repairing: false,
  })
  const snapshots = createSnapshotCache(config, status, () => 0)
  const first = snapshots.current()
  expect(JSON.parse(first.body).events).toEqual(stored)
  expect(parses).toBe(0)
  // The log moves on before anyone read the first snapshot's events: they are still the first version's.
  log.append([event(3)])
  expect(parses).toBe(1)
  expect(first.snapshot.events).toEqual(stored)
  const second = snapshots.current()
  expect(second.snapshot.events).toEqual([...stored, event(3)])
  expect(JSON.parse(second.body)).toEqual(JSON.parse(JSON.stringify(second.snapshot)))
})
