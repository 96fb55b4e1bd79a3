/** Where a stream stands: after change `seq` of the history `historyId`. */
export type StreamCursor = { seq: number; historyId: string }

/**
 * A stream message's `id`: `<seq>.<historyId>`, the number of the last change the
 * message covers and the change history it belongs to (8 hex digits). Readable, and
 * told apart from a `GET /activity` nextCursor (base64url has no dot).
 */
export function encodeStreamCursor(cursor: StreamCursor): string {
  return `${cursor.seq}.${cursor.historyId}`
}

/** The cursor an id names, or undefined when it is not a stream id (it may be an /activity nextCursor). */
export function decodeStreamCursor(text: string): StreamCursor | undefined {
  const match = /^(0|[1-9][0-9]{0,15})\.([0-9a-f]{8})$/.exec(text)
  if (!match) return undefined
  const seq = Number(match[1])
  return Number.isSafeInteger(seq) ? { seq, historyId: match[2]! } : undefined
}
