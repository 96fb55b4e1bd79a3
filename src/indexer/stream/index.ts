// GET /activity/stream: Server-Sent Events of the indexed activity, resumable on any replica.
export { type ActivityStreamRoute, createActivityStreamRoute, eventsPerMessage, retryMs } from './activityStream.ts'
export { decodeStreamCursor, encodeStreamCursor, type StreamCursor } from './cursor.ts'
export { type ActivityFeed, createActivityFeed, type FeedItem, type StreamFilter, type StreamStart } from './feed.ts'
