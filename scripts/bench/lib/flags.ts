/** A tool's whole-number flag value, at least `from`; otherwise an error naming the flag and what it takes. */
export function wholeFrom(text: string, from: number, flag: string): number {
  const value = Number(text)
  if (!Number.isInteger(value) || value < from) throw new Error(`${flag} takes whole numbers from ${from} (got ${text})`)
  return value
}
