import type {
  ActivityEvent,
  ActivityPage,
  ActivitySnapshot,
  ActivityStreamMessage,
  IndexerReadiness,
  IndexerStatus,
  IndexerUnavailable,
} from '../../wire/index.ts'
import { encodeCursor } from '../query/index.ts'

// Example bodies for the indexer's OpenAPI document: one consistent story (a
// registry deployed at block 2200 on Arbitrum Sepolia, bound to its inbox and pool,
// one lien recorded), so every example validates against its schema
// (test/openapi/indexerDocument.test.ts checks that).

const [registry, inbox, pool, escrow] = [
  '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
  '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9',
] as const

const events: ActivityEvent[] = [
  {
    name: 'Bound',
    address: registry,
    blockNumber: '2201',
    logIndex: 0,
    transactionHash: '0x2b4c6e8f0a1c3e5f7a9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c',
    fields: { inbox, escrow },
  },
  {
    name: 'EscrowSet',
    address: pool,
    blockNumber: '2202',
    logIndex: 1,
    transactionHash: '0x7d1e3f5a7c9b1d3e5f7a9c1b3d5e7f9a1c3b5d7e9f1a3c5b7d9e1f3a5c7b9d1e',
    fields: { escrow },
  },
  {
    name: 'LienRecorded',
    address: registry,
    blockNumber: '2207',
    logIndex: 3,
    transactionHash: '0x91a3c5e7f9b1d3a5c7e9f1b3d5a7c9e1f3b5d7a9c1e3f5b7d9a1c3e5f7b9d1a3',
    fields: {
      lienId: '1',
      securedParty: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
      borrower: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
      expiresAt: '1735689600',
    },
  },
]

const heights = { deployedAt: '2200', indexedThrough: '2310', head: '2310', lagBlocks: 0 }

export const activitySnapshotExample: ActivitySnapshot = {
  source: 'chain',
  chainId: 421614,
  addresses: [registry, inbox, pool, escrow],
  ...heights,
  stale: false,
  truncated: false,
  events,
}

/** `GET /activity?address=<registry>&limit=1`: the first registry event and where to continue. */
export const activityPageExample: ActivityPage = {
  ...activitySnapshotExample,
  events: [events[0]!],
  nextCursor: encodeCursor({ block: events[0]!.blockNumber, logIndex: events[0]!.logIndex }),
}

/** Parameter values that fit the examples above. */
export const activityQueryExamples: Record<string, string> = {
  name: 'LienRecorded,LienReleased',
  address: registry,
  fromBlock: '2200',
  toBlock: '2310',
  limit: '100',
  cursor: activityPageExample.nextCursor!,
}

export const badQueryExample = {
  ok: false,
  code: 'BAD_QUERY',
  parameter: 'limit',
  message: 'limit: must be a whole number from 1 to 10000000',
} as const

export const noSnapshotExample: IndexerUnavailable = { ok: false, code: 'UNAVAILABLE', message: 'no snapshot yet; retry shortly' }
export const internalErrorExample: IndexerUnavailable = { ok: false, code: 'UNAVAILABLE', message: 'internal error; retry shortly' }

export const readyExample: IndexerReadiness = { ready: true, indexedThrough: '2310', head: '2310', lagBlocks: 0 }

export const notReadyExamples: Record<NonNullable<IndexerReadiness['reason']>, IndexerReadiness> = {
  'head-unreadable': {
    ready: false,
    reason: 'head-unreadable',
    message: 'the chain head could not be read for over 30000 ms',
    indexedThrough: '2310',
    head: '2310',
    lagBlocks: 0,
  },
  repairing: {
    ready: false,
    reason: 'repairing',
    message: 'a reorg is being repaired: events above the fork are being fetched again',
    indexedThrough: '2298',
    head: '2311',
    lagBlocks: 13,
  },
  backfilling: {
    ready: false,
    reason: 'backfilling',
    message: 'catching up: indexed through block 2250 of 2310',
    indexedThrough: '2250',
    head: '2310',
    lagBlocks: 60,
  },
  stale: {
    ready: false,
    reason: 'stale',
    message: '70 blocks behind the head, more than INDEXER_STALE_BLOCKS (64)',
    indexedThrough: '2240',
    head: '2310',
    lagBlocks: 70,
  },
  'database-unreachable': {
    ready: false,
    reason: 'database-unreachable',
    message: 'PostgreSQL cannot be reached (connection refused): serving the last snapshot',
    indexedThrough: '2310',
    head: '2312',
    lagBlocks: 2,
    role: 'reader',
  },
}

export const indexerStatusExample: IndexerStatus = {
  chainId: 421614,
  ...heights,
  stale: false,
  truncated: false,
  eventsHeld: 3,
  recentEvents: { fromBlock: '2211', byName: {} },
  lastReorg: { at: '2026-11-23T13:52:07.000Z', forkPoint: '2296', depth: 3 },
}

/** A lien recorded at block 2311, then taken off the chain by a reorg and recorded again at 2312. */
const recorded = events.at(-1)!
const recordedAgain = (blockNumber: string, transactionHash: string): ActivityEvent => ({ ...recorded, blockNumber, logIndex: 0, transactionHash, fields: { ...recorded.fields, lienId: '2' } })
const orphaned = recordedAgain('2311', '0x3e5f7a9c1b3d5e7f9a1c3b5d7e9f1a3c5b7d9e1f3a5c7b9d1e3f5a7c9b1d3e5f')
const replacement = recordedAgain('2312', '0x5a7c9e1f3b5d7a9c1e3f5b7d9a1c3e5f7b9d1a3c5e7f9b1d3a5c7e9f1b3d5a7c')

/** Parameter values of `GET /activity/stream` that fit the examples. */
export const activityStreamQueryExamples: Record<string, string> = {
  name: 'LienRecorded,LienReleased',
  address: registry,
  fromBlock: '2200',
  cursor: '41.3f9a0c1d',
}

/** Messages of `GET /activity/stream`, as a client sees them (event, id, the data parsed). */
export const activityStreamExamples: Record<string, { summary: string; value: ActivityStreamMessage[] }> = {
  following: {
    summary: 'A stream following the head: the status, a new event, its retraction by a reorg, the replacement',
    value: [
      { event: 'status', id: '41.3f9a0c1d', data: { indexedThrough: '2310', head: '2310', lagBlocks: 0, stale: false } },
      { event: 'events', id: '42.3f9a0c1d', data: { events: [orphaned] } },
      { event: 'removed', id: '43.3f9a0c1d', data: { events: [orphaned] } },
      { event: 'events', id: '44.3f9a0c1d', data: { events: [replacement] } },
      { event: 'status', id: '44.3f9a0c1d', data: { indexedThrough: '2312', head: '2313', lagBlocks: 1, stale: false } },
    ],
  },
  reset: {
    summary: 'A Last-Event-ID of another index: a reset, then the retained events',
    value: [
      { event: 'reset', data: { message: 'cursor 41.00c0ffee belongs to another change history (another index, or a store that was replaced): the retained events follow' } },
      { event: 'status', id: '37.3f9a0c1d', data: { indexedThrough: '2310', head: '2310', lagBlocks: 0, stale: false } },
      { event: 'events', id: '41.3f9a0c1d', data: { events } },
    ],
  },
  cutoff: {
    summary: 'A client that stopped reading: its last message, then where to resume',
    value: [
      { event: 'events', id: '44.3f9a0c1d', data: { events: [replacement] } },
      {
        event: 'cutoff',
        id: '44.3f9a0c1d',
        data: { cursor: '44.3f9a0c1d', message: 'this stream was not read for 10000 ms (INDEXER_STREAM_STALL_MS): reconnect with Last-Event-ID 44.3f9a0c1d (or ?cursor=) to resume' },
      },
    ],
  },
}

export const tooManyStreamsExample: IndexerUnavailable = {
  ok: false,
  code: 'UNAVAILABLE',
  message: '10000 streams are open, the most this indexer serves (INDEXER_STREAM_MAX_CLIENTS): retry shortly or use another replica',
}
