import type { Readiness } from '../../wire/index.ts'

/** A named readiness check: resolves with the reason it fails (what to do included), or undefined when fine. */
export type ReadyCheckDefinition = { name: string; check: () => Promise<string | undefined> }

const cacheMs = 1_000
const checkTimeoutMs = 5_000

/**
 * `GET /ready` as a list of named checks run together; the answer is cached for a
 * second so a busy probe does not turn into RPC load. A check that throws or takes
 * longer than 5 s fails with that as its reason. More checks plug in with `add`
 * (the journal's, once the relayer keeps one).
 */
export function createReadiness(initial: ReadyCheckDefinition[]) {
  const checks = [...initial]
  let cached: { at: number; result: Promise<Readiness> } | undefined

  async function runOne({ name, check }: ReadyCheckDefinition) {
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(`the ${name} check took longer than ${checkTimeoutMs} ms`), checkTimeoutMs)))
    try {
      const reason = await Promise.race([check().catch((error: unknown) => `the ${name} check failed (${error instanceof Error ? error.name : 'error'})`), timeout])
      return reason === undefined ? { name, ok: true } : { name, ok: false, reason }
    } finally {
      clearTimeout(timer)
    }
  }

  async function run(): Promise<Readiness> {
    const results = await Promise.all(checks.map(runOne))
    const failed = results.find((result) => !result.ok)
    return failed ? { ready: false, reason: failed.reason, checks: results } : { ready: true, checks: results }
  }

  return {
    add(check: ReadyCheckDefinition) {
      checks.push(check)
      cached = undefined
    },
    names: () => checks.map((check) => check.name),
    /** The current readiness (at most a second old). */
    current(): Promise<Readiness> {
      const now = Date.now()
      if (!cached || now - cached.at > cacheMs) cached = { at: now, result: run() }
      return cached.result
    },
  }
}

export type ReadinessChecks = ReturnType<typeof createReadiness>
