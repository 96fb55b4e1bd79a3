/**
 * Event arguments as a flat JSON record: integers as decimal strings, addresses and
 * bytes as hex, booleans as `true`/`false`. Nested values are JSON text.
 */
export function formatEventArgs(args: unknown): Record<string, string> {
  const fields: Record<string, string> = {}
  if (!args || typeof args !== 'object' || Array.isArray(args)) return fields
  for (const [name, value] of Object.entries(args as Record<string, unknown>)) fields[name] = formatValue(value)
  return fields
}

function formatValue(value: unknown): string {
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return JSON.stringify(value, (_key, inner) => (typeof inner === 'bigint' ? inner.toString() : inner))
}
