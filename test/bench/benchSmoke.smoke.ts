// `bun run bench --quick --orders 100` end to end, as an operator runs it: every row
// with a target is printed with its target and its result, every row carries the
// load average, and the correctness checks hold (no order settled twice, no reverted
// tx, every answer the expected status, no eth_getLogs for blocks already indexed).
// The numbers themselves are not asserted: one quick run on a shared machine measures
// nothing (docs/benchmarks.md); the full run is the measurement.
//
// About two minutes, so it is not part of `npm test`: its name does not match bun's
// test pattern, and `.ci/run` runs it as a step of its own with its own time limit:
//   npx bun test --timeout 540000 ./test/bench/benchSmoke.smoke.ts
import { expect, test } from 'bun:test'
import { readFileSync, rmSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Row } from '../../scripts/bench/lib/report.ts'

const root = resolve(import.meta.dir, '../..')
const orders = 100

/** The rows with a target, by the start of their name, and that target. */
const targeted: Array<[name: string, op: '>=' | '<=', value: number]> = [
  [`settlement (automine), ${orders} orders`, '>=', 0.95],
  ['chain work: anvil CPU per 1000 orders (automine)', '<=', 1.05],
  [`settlement (0.25 s blocks), ${orders} orders`, '>=', 0.9],
  ['settlement (0.25 s blocks), latency p50', '<=', 250],
  [`settlement (automine) with the key at a signer service, ${orders} orders`, '>=', 0.9],
  [`journal: settlement (automine), ${orders} orders`, '>=', 0.95],
  [`flood isolation: settlement (automine), ${orders} orders`, '>=', 0.8],
  ['indexer backfill', '<=', 1.3],
  ['indexer restart', '<=', 0.5],
  ['GET /activity, ', '>=', 0.8],
  ['start to first /health 200 (relayer)', '<=', 2],
]

/** Rows kept as information, without a target (docs/benchmarks.md, "The targets"). */
const information = [
  'rejections MALFORMED_ORDER, 32 connections',
  'rejections FEE_BELOW_FLOOR, 32 connections',
  'relayer CPU per 1000 settled orders, of anvil CPU',
  ...['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'windows-x64'].map((target) => `release artifact size: ${target}`),
]

test(
  'a quick bench prints every row with its target and result, each with the load average, and no correctness check fails',
  async () => {
    const run = Bun.spawn([process.execPath, 'scripts/bench/index.ts', '--quick', '--orders', String(orders)], {
      cwd: root,
      env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: '2048' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited])
    const written = /written to (\S+\.json)/.exec(out)?.[1]
    let rows: Row[] = []
    if (written) {
      // The results file is read, then removed: the test leaves nothing in the repository.
      rows = (JSON.parse(readFileSync(resolve(root, written), 'utf8')) as { rows: Row[] }).rows
      rmSync(resolve(root, written))
    }
    expect({ code, written: written !== undefined }, `bench output:\n${out}\n${err.slice(-4000)}`).toEqual({ code: 0, written: true })

    for (const [name, op, value] of targeted) {
      const found = rows.find((row) => row.name.startsWith(name))
      expect(found, `row ${name}`).toBeDefined()
      expect(found!.target, name).toMatchObject({ op, value })
      expect(typeof found!.pass, name).toBe('boolean')
      // The printed table gives the result beside the target.
      expect(out).toMatch(new RegExp(`\\| ${name.replace(/[()]/g, '\\$&')}[^\\n]*\\| (pass|MISS|UNSTEADY) +\\|`))
    }
    for (const name of information) {
      const found = rows.find((row) => row.name.startsWith(name))
      expect(found, `row ${name}`).toBeDefined()
      expect(found!.target, name).toBeUndefined()
      // Printed with no target, as information.
      expect(out).toMatch(new RegExp(`\\| ${name.replace(/[()]/g, '\\$&')}[^\\n]*\\| — +\\| info +\\|`))
      expect(found!.failedChecks, name).toEqual([])
    }
    expect(rows.some((row) => row.name.startsWith('flood isolation: GET /info p99')), 'the /info p99 during the flood').toBe(true)

    for (const row of rows) {
      expect(row.checks.load, `${row.name}: load average`).toMatch(/^\d+\.\d+ \d+\.\d+ \d+\.\d+$/)
      if ('settled twice' in row.checks) {
        expect({ twice: row.checks['settled twice'], reverted: row.checks.reverted, non200: row.checks['non-200'] }, row.name).toEqual({ twice: 0, reverted: 0, non200: 0 })
        const [settled, expected] = String(row.checks.settled).split('/')
        expect(settled, `${row.name}: settled`).toBe(expected)
      }
      for (const [key, value] of Object.entries(row.checks)) {
        if (!/^\d{3} answers$/.test(key)) continue
        const [answered, sent] = String(value).split('/')
        expect(answered, `${row.name}: ${key}`).toBe(sent)
      }
    }
    expect(rows.find((row) => row.name.startsWith('indexer restart'))!.checks['eth_getLogs on restart']).toBe(0)
  },
  540_000,
)
