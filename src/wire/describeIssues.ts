import type * as v from 'valibot'

// Field names a message may repeat; any other key came from the client and is not echoed.
const knownKeys = new Set([
  'order', 'signature', 'validAfter', 'validBefore', 'chainId', 'orderHash',
  'consumer', 'adapter', 'params', 'payToken', 'payee', 'amount', 'nonce', 'feeBps',
  'v', 'r', 's',
])

/** What `describeIssues` reads of a valibot issue. */
export type DescribedIssue = Pick<v.BaseIssue<unknown>, 'type' | 'input' | 'message' | 'expected'> & { path?: readonly { key: unknown }[] | undefined }

function explain(issue: DescribedIssue, unknownKey: boolean): string {
  if (unknownKey) return 'has an unexpected field'
  if (issue.type === 'object' || issue.type === 'strict_object') {
    return issue.input === undefined ? 'is required' : 'must be a JSON object'
  }
  if (issue.input === undefined) return 'is required'
  // valibot's default messages embed the received value; ours (set in the schemas) do not.
  return issue.message.includes('eceived') ? `expected ${issue.expected ?? 'a valid value'}` : issue.message
}

/** Problems named in one message; the rest are counted ("and 3 more problems"). */
export const namedProblemLimit = 6

/**
 * One line naming each failing field and what was expected, for `MALFORMED_ORDER`:
 * the first `namedProblemLimit` distinct problems, then how many more there are, so
 * a client never fixes six and meets a seventh. Never includes the received value or
 * an unknown key (either may be anything).
 *
 * @example
 * describeIssues(v.safeParse(RelayRequestSchema, {}).issues!) // 'order is required; signature is required; …'
 */
export function describeIssues(issues: readonly DescribedIssue[]): string {
  const parts = new Set<string>()
  for (const issue of issues) {
    const keys = (issue.path ?? []).map((item) => (typeof item.key === 'string' && knownKeys.has(item.key) ? item.key : null))
    const unknownKey = keys.includes(null)
    const path = keys.filter((key) => key !== null).join('.') || 'body'
    parts.add(`${path} ${explain(issue, unknownKey)}`)
  }
  const all = [...parts]
  const named = all.slice(0, namedProblemLimit)
  const more = all.length - named.length
  if (more > 0) named.push(`and ${more} more problem${more === 1 ? '' : 's'}`)
  return named.join('; ')
}
