import type { CheckResult } from './checkResult.ts'

/**
 * One line per check, `✓ name: detail` or `✗ name: detail — fix: …`, then a summary
 * line; what `order-relay check` prints without `--json`.
 *
 * @example
 * formatReport([{ name: 'rpc', ok: true, detail: 'http://127.0.0.1:8545 answers as chain 421614', fix: null }])
 * // ['✓ rpc: http://127.0.0.1:8545 answers as chain 421614', 'check: all 1 checks passed']
 */
export function formatReport(results: readonly CheckResult[]): string[] {
  const lines = results.map((result) => (result.ok ? `✓ ${result.name}: ${result.detail}` : `✗ ${result.name}: ${result.detail} — fix: ${result.fix}`))
  const failed = results.filter((result) => !result.ok).length
  lines.push(failed === 0 ? `check: all ${results.length} checks passed` : `check: ${failed} of ${results.length} checks failed`)
  return lines
}
