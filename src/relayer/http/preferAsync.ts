/**
 * True when a `Prefer` header (RFC 7240) asks for `respond-async`: a comma-separated
 * list of preferences, each a token with an optional value and parameters, matched
 * case-insensitively; other preferences (`wait=10`, `return=minimal`) are ignored.
 *
 * @example
 * prefersRespondAsync('respond-async, wait=10') // true
 * prefersRespondAsync(null) // false
 */
export function prefersRespondAsync(header: string | null): boolean {
  if (!header) return false
  return header.split(',').some((preference) => preference.split(/[;=]/, 1)[0]!.trim().toLowerCase() === 'respond-async')
}
