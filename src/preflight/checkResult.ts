import * as v from 'valibot'

/**
 * One preflight check as `order-relay check --json` prints it: its name, whether it
 * passed, what was found, and the fix (null when it passed). Never a key, never a URL's
 * credentials.
 */
export const CheckResultSchema = v.object({
  name: v.string(),
  ok: v.boolean(),
  detail: v.string(),
  fix: v.nullable(v.string()),
})

export type CheckResult = v.InferOutput<typeof CheckResultSchema>

/** What `order-relay check --json` prints: every check, in the order they ran. */
export const CheckReportSchema = v.array(CheckResultSchema)

export type CheckReport = v.InferOutput<typeof CheckReportSchema>

/** A check that passed. */
export const pass = (name: string, detail: string): CheckResult => ({ name, ok: true, detail, fix: null })

/** A check that failed: what is wrong (naming the variable) and what to do. */
export const fail = (name: string, detail: string, fix: string): CheckResult => ({ name, ok: false, detail, fix })

/**
 * A failure from a message the relayer itself gives (`… : point it at …`): its problem
 * and, after the last `: ` followed by a lower-case word, its fix; `fallbackFix` when
 * the message carries none.
 */
export function failFromMessage(name: string, message: string, fallbackFix: string): CheckResult {
  const match = /^(.*): ([a-z][^]*)$/.exec(message)
  return match && !match[2]!.includes(': ') ? fail(name, match[1]!, match[2]!) : fail(name, message, fallbackFix)
}
