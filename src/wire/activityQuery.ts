import * as v from 'valibot'
import { ActivitySnapshotSchema } from './activity.ts'
import { addressPattern, BlockNumberStringSchema, decimalPatternUpTo } from './primitives.ts'

/** A block number in a query: a canonical decimal string of at most 31 digits. */
const blockNumberPattern = decimalPatternUpTo(31)

const commaList = (item: RegExp, what: string) =>
  v.pipe(
    v.string(`must be ${what}`),
    v.check((text) => text.split(',').every((part) => item.test(part)), `must be ${what}, or several separated by commas`),
  )

/** Query parameters of `GET /activity` (all optional; none given: the whole snapshot). */
export const ActivityQuerySchema = v.strictObject(
  {
    name: v.optional(
      v.pipe(commaList(/^[A-Za-z_][A-Za-z0-9_]{0,99}$/, 'an event name'), v.description('Only events of this name (or of these names, comma-separated).')),
    ),
    address: v.optional(
      v.pipe(
        commaList(addressPattern, 'an address (0x followed by 40 hex digits)'),
        v.description('Only events emitted by this contract (or these, comma-separated); any letter case.'),
      ),
    ),
    fromBlock: v.optional(
      v.pipe(v.string(), v.regex(blockNumberPattern, 'must be a block number (decimal digits)'), v.description('Only events at or after this block.')),
    ),
    toBlock: v.optional(
      v.pipe(v.string(), v.regex(blockNumberPattern, 'must be a block number (decimal digits)'), v.description('Only events at or before this block.')),
    ),
    limit: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^[1-9][0-9]{0,7}$/, 'must be a whole number from 1 to 10000000'),
        v.check((text) => !/^[0-9]+$/.test(text) || Number(text) <= 10_000_000, 'must be a whole number from 1 to 10000000'),
        v.description('At most this many events (1 to 10000000); the rest on the next page.'),
      ),
    ),
    cursor: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^[A-Za-z0-9_-]{1,200}$/, 'must be a nextCursor value from an earlier answer'),
        v.description('Opaque: the `nextCursor` of an earlier answer; continues after its last event, in chain order.'),
      ),
    ),
  },
  'unknown query parameter',
)

export type ActivityQuery = v.InferOutput<typeof ActivityQuerySchema>

/** Body of `GET /activity` with any query parameter: the snapshot over the matching events, and where to continue. */
export const ActivityPageSchema = v.object({
  ...ActivitySnapshotSchema.entries,
  nextCursor: v.pipe(
    v.nullable(v.string()),
    v.description(
      'Pass as `cursor` to continue after the last event of this page (also after new blocks: events added later come next); null when the page is empty and no cursor was given.',
    ),
  ),
})

export type ActivityPage = v.InferOutput<typeof ActivityPageSchema>

/** A refused query parameter. */
export const ActivityQueryProblemSchema = v.object({
  ok: v.literal(false),
  code: v.literal('BAD_QUERY'),
  parameter: v.pipe(v.string(), v.description('The query parameter refused.')),
  message: v.string(),
})

/** Body of `GET /ready`. */
export const IndexerReadinessSchema = v.object({
  ready: v.boolean(),
  reason: v.optional(
    v.pipe(
      v.picklist(['head-unreadable', 'repairing', 'backfilling', 'stale', 'database-unreachable']),
      v.description(
        'Why not ready: the head cannot be read, a reorg is being repaired, the first catch-up is running, the index lags, or (INDEXER_DATABASE_URL) PostgreSQL cannot be reached.',
      ),
    ),
  ),
  role: v.optional(
    v.pipe(
      v.picklist(['writer', 'reader']),
      v.description('With INDEXER_DATABASE_URL: writer (holds the lock, syncs the chain) or reader (a read-only API replica serving what the writer stored).'),
    ),
  ),
  message: v.optional(v.string()),
  indexedThrough: BlockNumberStringSchema,
  head: v.nullable(BlockNumberStringSchema),
  lagBlocks: v.pipe(v.number(), v.integer(), v.minValue(0)),
})

export type IndexerReadiness = v.InferOutput<typeof IndexerReadinessSchema>

/** 503 from `GET /activity` before the first snapshot, and from any indexer route that failed unexpectedly. */
export const IndexerUnavailableSchema = v.object({
  ok: v.literal(false),
  code: v.literal('UNAVAILABLE'),
  message: v.pipe(v.string(), v.description('What happened; retry shortly.')),
})

export type IndexerUnavailable = v.InferOutput<typeof IndexerUnavailableSchema>
