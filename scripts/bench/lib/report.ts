import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { isSteady, median, round, steadyTolerance } from './stats.ts'

/**
 * What the row must reach: its ratio (subject / baseline) by default, or with
 * `of: 'difference'` the subject minus the baseline, in the row's unit (a latency
 * within one block of the baseline's).
 */
export type Target = { op: '>=' | '<='; value: number; of?: 'ratio' | 'difference' }

/** One benchmark row: the thing measured beside its baseline, medians of `runs`. */
export type Row = {
  name: string
  /** Unit of `subject` and `baseline` (orders/s, req/s, ms, MiB). */
  unit: string
  subjectName: string
  baselineName: string
  subject: number
  baseline: number
  /** subject / baseline. */
  ratio: number
  target: Target | undefined
  /** Whether the ratio meets the target, every check held and the runs were steady (undefined: no target). */
  pass: boolean | undefined
  /**
   * Set on a row with a target whose checks held but whose runs scattered too much for
   * their median to say anything (`isSteady`): which side, with its runs. Such a row is
   * neither a pass nor a miss (`UNSTEADY`); the machine was disturbed, run it again.
   */
  unsteady?: string
  runs: { subject: number[]; baseline: number[] }
  /** Correctness facts measured on the way (settled count, nonce errors, …). */
  checks: Record<string, number | string | boolean>
  /** Checks that must hold for the row to pass, as [name, ok]. */
  failedChecks: string[]
}

/** Builds a row from the raw runs. */
export function row(parameters: {
  name: string
  unit: string
  subjectName: string
  baselineName: string
  subject: number[]
  baseline: number[]
  target?: Target
  checks?: Record<string, number | string | boolean>
  failedChecks?: string[]
}): Row {
  const subject = median(parameters.subject)
  const baseline = median(parameters.baseline)
  const ratio = subject / baseline
  const failedChecks = parameters.failedChecks ?? []
  const target = parameters.target
  const compared = target?.of === 'difference' ? subject - baseline : ratio
  const meets = target === undefined ? undefined : target.op === '>=' ? compared >= target.value : compared <= target.value
  // Judged only where a target would be: a failed check already makes the row a miss.
  const scattered = target === undefined || failedChecks.length > 0 ? [] : (['subject', 'baseline'] as const).filter((side) => !isSteady(parameters[side]))
  const unsteady = scattered.length
    ? `${scattered.map((side) => `${side} runs ${parameters[side].map((x) => round(x)).join(' ')}`).join(', ')}: fewer than half within ${steadyTolerance * 100} % of their median`
    : undefined
  return {
    name: parameters.name,
    unit: parameters.unit,
    subjectName: parameters.subjectName,
    baselineName: parameters.baselineName,
    subject: round(subject),
    baseline: round(baseline),
    ratio: round(ratio, 3),
    target,
    pass: meets === undefined ? (failedChecks.length ? false : undefined) : meets && failedChecks.length === 0 && unsteady === undefined,
    ...(unsteady ? { unsteady } : {}),
    runs: { subject: parameters.subject.map((x) => round(x)), baseline: parameters.baseline.map((x) => round(x)) },
    checks: parameters.checks ?? {},
    failedChecks,
  }
}

/** The machine the numbers come from. */
export function machine() {
  const model = cpus()[0]?.model ?? 'unknown'
  return {
    nproc: navigator.hardwareConcurrency,
    cpu: model,
    memoryGiB: round(totalmem() / 2 ** 30, 3),
    bun: Bun.version,
    platform: `${process.platform} ${process.arch}`,
  }
}

const formatTarget = (r: Row) => {
  if (!r.target) return '—'
  return r.target.of === 'difference' ? `− baseline ${r.target.op} ${r.target.value} ${r.unit}` : `${r.target.op} ${r.target.value}`
}

const pad = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - text.length))

/** A Markdown table of the rows (printed, and pasted into docs/benchmarks.md). */
export function formatTable(rows: readonly Row[]): string {
  const header = ['benchmark', 'measured', 'baseline', 'ratio', 'target', 'result', 'checks']
  const lines = rows.map((r) => [
    r.name,
    `${r.subject} ${r.unit}`,
    `${r.baseline} ${r.unit} (${r.baselineName})`,
    r.ratio.toFixed(2),
    formatTarget(r),
    r.pass === undefined ? 'info' : r.pass ? 'pass' : r.unsteady ? 'UNSTEADY' : 'MISS',
    [
      ...Object.entries(r.checks).map(([key, value]) => `${key}: ${value}`),
      ...r.failedChecks.map((text) => `FAILED ${text}`),
      ...(r.unsteady ? [`UNSTEADY ${r.unsteady}; run the row again`] : []),
    ].join(', '),
  ])
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => (line[column] ?? '').length)))
  const render = (cells: string[]) => `| ${cells.map((cell, column) => pad(cell, widths[column] ?? 0)).join(' | ')} |`
  return [render(header), render(widths.map((width) => '-'.repeat(width))), ...lines.map(render)].join('\n')
}

/** Writes bench-results/<timestamp>.json and returns its path. */
export function writeResults(rows: readonly Row[], extra: Record<string, unknown>): string {
  const dir = 'bench-results'
  mkdirSync(dir, { recursive: true })
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  const path = join(dir, `${stamp}.json`)
  writeFileSync(path, `${JSON.stringify({ at: new Date().toISOString(), machine: machine(), ...extra, rows }, null, 2)}\n`)
  return path
}
