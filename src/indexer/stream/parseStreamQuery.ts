import * as v from 'valibot'
import { ActivityStreamCursorSchema, ActivityStreamQuerySchema } from '../../wire/index.ts'
import type { QueryProblem } from '../query/index.ts'
import type { StreamFilter } from './feed.ts'

/**
 * Reads `GET /activity/stream`'s query parameters (`c.req.queries()`) and its
 * `Last-Event-ID` header through the wire schema; the first problem names its
 * parameter. `Last-Event-ID` (what EventSource sends when it reconnects) wins over
 * `cursor`; a malformed one is a problem of its own, named `Last-Event-ID`.
 */
export function parseStreamQuery(raw: Record<string, string[]>, lastEventId: string | undefined): { filter: StreamFilter; cursor: string | undefined } | { problem: QueryProblem } {
  const problem = (parameter: string, message: string) => ({ problem: { ok: false as const, code: 'BAD_QUERY' as const, parameter, message: `${parameter}: ${message}` } })
  const names = Object.keys(raw)
  const repeated = names.find((name) => (raw[name]?.length ?? 0) > 1)
  if (repeated !== undefined) return problem(repeated, 'given more than once; separate several values with commas')
  const parsed = v.safeParse(ActivityStreamQuerySchema, Object.fromEntries(names.map((name) => [name, raw[name]![0]!])))
  if (!parsed.success) {
    const issue = parsed.issues[0]
    const parameter = String(issue.path?.[0]?.key ?? names[0])
    const known = parameter in ActivityStreamQuerySchema.entries
    return problem(parameter, known ? issue.message : `unknown query parameter (known: ${Object.keys(ActivityStreamQuerySchema.entries).join(', ')})`)
  }
  const input = parsed.output
  const filter: StreamFilter = {}
  if (input.name !== undefined) filter.names = new Set(input.name.split(','))
  if (input.address !== undefined) filter.addresses = new Set(input.address.toLowerCase().split(','))
  if (input.fromBlock !== undefined) filter.fromBlock = input.fromBlock
  const header = lastEventId?.trim()
  if (header) {
    if (!v.safeParse(ActivityStreamCursorSchema, header).success) return problem('Last-Event-ID', 'must be the id of a message of an earlier stream')
    return { filter, cursor: header }
  }
  return { filter, cursor: input.cursor }
}
