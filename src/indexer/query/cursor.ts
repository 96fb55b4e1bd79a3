/** A position in chain order: after this block's log `logIndex`. */
export type Position = { block: string; logIndex: number }

/**
 * Cursors are opaque to clients: base64url of `block.logIndex` of the last event a
 * page returned. A chain position, not an offset, so it stays meaningful while
 * old events leave the retention and new ones arrive.
 */
export function encodeCursor(position: Position): string {
  return Buffer.from(`${position.block}.${position.logIndex}`).toString('base64url')
}

/** The position a cursor names, or undefined when it is not one of ours. */
export function decodeCursor(cursor: string): Position | undefined {
  const match = /^(0|[1-9][0-9]{0,30})\.(0|[1-9][0-9]{0,9})$/.exec(Buffer.from(cursor, 'base64url').toString())
  if (!match) return undefined
  return { block: match[1]!, logIndex: Number(match[2]) }
}
