import { expect, test } from 'bun:test'
import { createEventLog } from '../../src/indexer/sync/eventLog.ts'
import type { ActivityEvent } from '../../src/wire/index.ts'

const event = (block: number, logIndex = 0): ActivityEvent => ({
  name: 'LienProposed',
  address: '0x0000000000000000000000000000000000000001',
  blockNumber: String(block),
  logIndex,
  transactionHash: `0x${'ab'.repeat(32)}`,
  fields: {},
})

test('one append of 1.2M events works (an argument spread threw RangeError near 1M)', () => {
  const log = createEventLog(10_000_000)
  const many = Array.from({ length: 1_200_000 }, (_, i) => event(1 + Math.floor(i / 4), i % 4))
  log.append(many)
  expect(log.events.length).toBe(1_200_000)
  expect(log.events[1_199_999]).toBe(many[1_199_999]!)
  expect(log.truncated).toBe(false)
})

test('retention at its documented maximum (10,000,000) keeps exactly the newest 10M and marks the log truncated', () => {
  const log = createEventLog(10_000_000)
  // One shared event object per chunk keeps memory at the array's 8 bytes an entry.
  for (let chunk = 0; chunk < 5; chunk++) {
    const same = event(chunk + 1)
    log.append(new Array<ActivityEvent>(2_000_000).fill(same))
  }
  expect(log.events.length).toBe(10_000_000)
  expect(log.truncated).toBe(false)
  const last = event(6)
  log.append([last, last, last])
  expect(log.events.length).toBe(10_000_000)
  expect(log.truncated).toBe(true)
  expect(log.events[0]?.blockNumber).toBe('1')
  expect(log.events[9_999_999]).toBe(last)
})

test('events appended out of order are sorted into chain order', () => {
  const log = createEventLog(10)
  log.append([event(10, 1), event(9, 0), event(10, 0), event(100, 0)])
  expect(log.events.map((e) => `${e.blockNumber}:${e.logIndex}`)).toEqual(['9:0', '10:0', '10:1', '100:0'])
})

test('restored events are read only when first needed; appending, dropping and counting then work on them', () => {
  const log = createEventLog(3)
  const stored = [event(1), event(2), event(3)]
  let reads = 0
  log.restore(() => (reads++, JSON.parse(JSON.stringify(stored)) as ActivityEvent[]), 3, false, JSON.stringify(stored))
  // Count and JSON come without reading the events.
  expect(log.count).toBe(3)
  expect(log.json).toBe(JSON.stringify(stored))
  expect(reads).toBe(0)
  expect(log.events).toEqual(stored)
  expect(reads).toBe(1)
  log.events
  expect(reads).toBe(1)
  // A restored log that is appended to before being read reads the stored events first (retention 3 keeps the newest).
  const again = createEventLog(3)
  let againReads = 0
  again.restore(() => (againReads++, [...stored]), 3, false)
  again.append([event(4)])
  expect(againReads).toBe(1)
  expect(again.events.map((e) => e.blockNumber)).toEqual(['2', '3', '4'])
  expect(again.truncated).toBe(true)
  expect(again.json).toBeUndefined()
  const third = createEventLog(10)
  third.restore(() => [...stored], 3, false)
  expect(third.dropAbove(1n)).toBe(2)
  expect(third.count).toBe(1)
})
