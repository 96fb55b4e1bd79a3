/** Every message of an error and its causes, for matching a node's wording. */
export function errorText(error: unknown): string {
  const parts: string[] = []
  let current: unknown = error
  for (let i = 0; current && i < 8; i++) {
    const e = current as { message?: unknown; details?: unknown; shortMessage?: unknown }
    parts.push(String(e.shortMessage ?? ''), String(e.details ?? ''), String(e.message ?? ''))
    current = (current as { cause?: unknown }).cause
  }
  return parts.join(' ')
}
