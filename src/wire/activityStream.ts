import * as v from 'valibot'
import { ActivityEventSchema } from './activity.ts'
import { ActivityQuerySchema } from './activityQuery.ts'
import { BlockNumberStringSchema } from './primitives.ts'

/**
 * A stream cursor (the `id` of every message of `GET /activity/stream`): the number of
 * the last change the message covers and the id of the index's change history, or a
 * `nextCursor` of `GET /activity` (a position in chain order).
 */
export const ActivityStreamCursorSchema = v.pipe(
  v.string(),
  v.regex(/^((0|[1-9][0-9]{0,15})\.[0-9a-f]{8}|[A-Za-z0-9_-]{1,200})$/, 'must be the id of a stream message, or a nextCursor of GET /activity'),
)

/** Query parameters of `GET /activity/stream` (all optional). */
export const ActivityStreamQuerySchema = v.strictObject(
  {
    name: ActivityQuerySchema.entries.name,
    address: ActivityQuerySchema.entries.address,
    fromBlock: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^(0|[1-9][0-9]{0,30})$/, 'must be a block number (decimal digits)'),
        v.description('Only events at or after this block; without a cursor, the retained ones are sent first, then what is indexed next.'),
      ),
    ),
    cursor: v.optional(
      v.pipe(
        ActivityStreamCursorSchema,
        v.description(
          'Resume after this point: the `id` of a message of an earlier stream (a `Last-Event-ID` header wins over it), or a `nextCursor` of GET /activity to follow on after that page. Without it (and without fromBlock), the stream starts with what is indexed from now on.',
        ),
      ),
    ),
  },
  'unknown query parameter',
)

export type ActivityStreamQuery = v.InferOutput<typeof ActivityStreamQuerySchema>

/** `data` of an `events` message: events just indexed (or retained, when replaying), in chain order. */
export const ActivityStreamEventsSchema = v.object({
  events: v.pipe(v.array(ActivityEventSchema), v.description('In chain order; at most 500 per message.')),
})

/** `data` of a `removed` message: events a reorg took off the chain, each as it was sent. */
export const ActivityStreamRemovedSchema = v.object({
  events: v.pipe(
    v.array(ActivityEventSchema),
    v.description('Events sent earlier (same blockNumber, logIndex and transactionHash) that are no longer on the chain: drop them. Replacements, if any, come in later `events` messages.'),
  ),
})

/** `data` of a `status` message: how fresh the index is, sent first and whenever the lag or `stale` changes. */
export const ActivityStreamStatusSchema = v.object({
  indexedThrough: BlockNumberStringSchema,
  head: BlockNumberStringSchema,
  lagBlocks: v.pipe(v.number(), v.integer(), v.minValue(0)),
  stale: v.pipe(v.boolean(), v.description('As in GET /activity: too far behind the head, the head unreadable, or a reorg being repaired.')),
  role: v.optional(v.pipe(v.picklist(['writer', 'reader']), v.description('With INDEXER_DATABASE_URL: this replica\'s role.'))),
})

/** `data` of a `cutoff` message, the last of a stream whose client stopped reading. */
export const ActivityStreamCutoffSchema = v.object({
  cursor: v.pipe(ActivityStreamCursorSchema, v.description('Where to resume: reconnect with it as Last-Event-ID (EventSource does) or `cursor`.')),
  message: v.string(),
})

/** `data` of a `reset` message: the cursor cannot be resumed exactly here. */
export const ActivityStreamResetSchema = v.object({
  message: v.pipe(
    v.string(),
    v.description('Why: another index, or changes the history no longer keeps (INDEXER_RETENTION). Drop the events held from this stream: the retained ones matching the filters follow.'),
  ),
})

export type ActivityStreamEvents = v.InferOutput<typeof ActivityStreamEventsSchema>
export type ActivityStreamRemoved = v.InferOutput<typeof ActivityStreamRemovedSchema>
export type ActivityStreamStatus = v.InferOutput<typeof ActivityStreamStatusSchema>
export type ActivityStreamCutoff = v.InferOutput<typeof ActivityStreamCutoffSchema>
export type ActivityStreamReset = v.InferOutput<typeof ActivityStreamResetSchema>

const messageId = v.pipe(ActivityStreamCursorSchema, v.description('The cursor after this message (EventSource keeps it as lastEventId).'))

/** One Server-Sent Events message of `GET /activity/stream`: its `event` field, `id` and `data` (JSON). Comment lines (`: heartbeat`) carry nothing. */
export const ActivityStreamMessageSchema = v.variant('event', [
  v.object({ event: v.literal('status'), id: messageId, data: ActivityStreamStatusSchema }),
  v.object({ event: v.literal('events'), id: messageId, data: ActivityStreamEventsSchema }),
  v.object({ event: v.literal('removed'), id: messageId, data: ActivityStreamRemovedSchema }),
  v.object({ event: v.literal('cutoff'), id: messageId, data: ActivityStreamCutoffSchema }),
  v.object({ event: v.literal('reset'), data: ActivityStreamResetSchema }),
])

export type ActivityStreamMessage = v.InferOutput<typeof ActivityStreamMessageSchema>
