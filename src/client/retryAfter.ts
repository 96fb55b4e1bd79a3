/**
 * Seconds to wait from a `Retry-After` header: delta-seconds, or an HTTP date
 * (counted from `now`, never negative). Undefined when absent or unreadable.
 *
 * @example
 * parseRetryAfter('3') // 3
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:50 GMT')) // 10
 */
export function parseRetryAfter(header: string | null | undefined, now: number = Date.now()): number | undefined {
  if (header === null || header === undefined) return undefined
  const text = header.trim()
  if (/^\d+$/.test(text)) return Number(text)
  const at = Date.parse(text)
  if (Number.isNaN(at)) return undefined
  return Math.max(0, Math.ceil((at - now) / 1000))
}
