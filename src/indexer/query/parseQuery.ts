import * as v from 'valibot'
import { ActivityQuerySchema } from '../../wire/index.ts'
import { decodeCursor } from './cursor.ts'
import type { PageQuery } from './selectPage.ts'

export type QueryProblem = { ok: false; code: 'BAD_QUERY'; parameter: string; message: string }

/**
 * Reads `GET /activity`'s query parameters (`c.req.queries()`) through the wire
 * schema; the first problem names its parameter. Undefined: no parameter at all
 * (the whole snapshot, byte for byte).
 */
export function parseQuery(raw: Record<string, string[]>): { query: PageQuery } | { problem: QueryProblem } | undefined {
  const names = Object.keys(raw)
  if (names.length === 0) return undefined
  const problem = (parameter: string, message: string) => ({ problem: { ok: false as const, code: 'BAD_QUERY' as const, parameter, message: `${parameter}: ${message}` } })
  const repeated = names.find((name) => (raw[name]?.length ?? 0) > 1)
  if (repeated !== undefined) return problem(repeated, 'given more than once; separate several values with commas')
  const flat = Object.fromEntries(names.map((name) => [name, raw[name]![0]!]))
  const parsed = v.safeParse(ActivityQuerySchema, flat)
  if (!parsed.success) {
    const issue = parsed.issues[0]
    const parameter = String(issue.path?.[0]?.key ?? names[0])
    const known = parameter in ActivityQuerySchema.entries
    return problem(parameter, known ? issue.message : `unknown query parameter (known: ${Object.keys(ActivityQuerySchema.entries).join(', ')})`)
  }
  const input = parsed.output
  const query: PageQuery = {}
  if (input.name !== undefined) query.names = new Set(input.name.split(','))
  if (input.address !== undefined) query.addresses = new Set(input.address.toLowerCase().split(','))
  if (input.fromBlock !== undefined) query.fromBlock = input.fromBlock
  if (input.toBlock !== undefined) query.toBlock = input.toBlock
  if (input.limit !== undefined) query.limit = Number(input.limit)
  if (input.cursor !== undefined) {
    const after = decodeCursor(input.cursor)
    if (!after) return problem('cursor', 'must be a nextCursor value from an earlier answer')
    query.after = after
    query.cursor = input.cursor
  }
  return { query }
}
