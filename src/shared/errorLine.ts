import { redactUrls } from './redactUrl.ts'

/** Longest line `errorLine` gives. */
const maxLength = 300

/**
 * A failure as one line for a log line or a message: a viem error's `shortMessage`
 * with the node's own words (`details`) in parentheses when they add something (never
 * viem's whole `message`, which lists the request body and the URL); any other error's
 * message, or the error inside an `ErrorEvent` (a Worker's, a WebSocket's). Of a text
 * on several lines, the `error: …` line Bun prints under a source excerpt, else the
 * first. Every URL in it is redacted (an RPC URL may hold an API key), whitespace is
 * collapsed and the line cut at 300 characters.
 *
 * @example
 * logger.warn(`receipt watcher: the RPC failed (${errorLine(error)}); trying again`)
 */
export function errorLine(error: unknown): string {
  return redactUrls(rawLine(error)).replace(/\s+/g, ' ').trim().slice(0, maxLength) || 'unknown error'
}

function rawLine(error: unknown): string {
  if (typeof error === 'string') return firstLine(error)
  if (typeof error !== 'object' || error === null) return String(error)
  const { shortMessage, details, message, error: inner } = error as { shortMessage?: unknown; details?: unknown; message?: unknown; error?: unknown }
  if (typeof shortMessage === 'string' && shortMessage) {
    const own = typeof details === 'string' ? firstLine(details) : ''
    return own && !shortMessage.includes(own) ? `${firstLine(shortMessage)} (${own})` : firstLine(shortMessage)
  }
  if (inner !== undefined && inner !== null) return rawLine(inner)
  if (typeof message === 'string' && message) return firstLine(message)
  return error instanceof Error ? error.name : 'unknown error'
}

function firstLine(text: string): string {
  const lines = text.split('\n').map((line) => line.trim()).filter(Boolean)
  const bun = lines.find((line) => /^error:/i.test(line))
  return bun ? bun.replace(/^error:\s*/i, '') : (lines[0] ?? '')
}
