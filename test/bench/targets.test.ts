// Which rows carry a target (docs/benchmarks.md, "The targets"): the automine
// settlement (≥ 0.95 of the baseline that simulates first) and its chain work (≤ 1.05)
// stand; the rejection rows and the relayer's CPU against anvil's print as information,
// with their ratio and checks and no target. Built from made-up runs, so no chain runs.
import { expect, test } from 'bun:test'
import { formatTable } from '../../scripts/bench/lib/report.ts'
import type { RunResult } from '../../scripts/bench/lib/settlementRuns.ts'
import { type Measured, type RejectionRuns, rejectionRows } from '../../scripts/bench/rejections.ts'
import { type SettlementRuns, settlementRows } from '../../scripts/bench/settlement.ts'

const orders = 100

function run(side: RunResult['side'], perSecond: number, relayerCpuPer1000?: number): RunResult {
  const threads = { main: 0.5, signer: 0.3, jit: 0.1, other: 0.1 }
  return {
    side,
    perSecond,
    p50: 20,
    p99: 40,
    anvilCpuPer1000: 2,
    ...(relayerCpuPer1000 === undefined
      ? {}
      : { relayerCpuPer1000, relayerThreadsPer1000: threads, warm: { relayerCpuPer1000, anvilCpuPer1000: 2, threadsPer1000: threads } }),
    runCpuPer1000: 4,
    coresBusy: 0.7,
    machine: { busy: 0.8, steal: 0 },
    settled: orders,
    twice: 0,
    reverted: 0,
    failed: 0,
    nonceErrors: 0,
    statuses: { 200: orders },
  }
}

const load = (perSecond: number, status: string): Measured => ({ perSecond, total: 1000, statuses: { [status]: 1000 }, errors: 0, timeouts: 0, p50: 1, cpuUsPerRequest: 20 })

/** The printed result and target of the row whose name starts with `name`. */
function printed(table: string, name: string) {
  const line = table.split('\n').find((text) => text.startsWith(`| ${name}`))
  const cells = line?.split('|').map((cell) => cell.trim())
  return { target: cells?.[5], result: cells?.[6] }
}

test('the automine settlement keeps its two targets; the relayer CPU rows are information', () => {
  const runs: SettlementRuns = {
    relayer: [run('relayer', 300, 1.6), run('relayer', 310, 1.7), run('relayer', 320, 1.5)],
    simulated: [run('baseline', 220), run('baseline', 230), run('baseline', 225)],
    bare: [run('baseline', 370), run('baseline', 380), run('baseline', 375)],
    least: [run('relayer', 320, 1), run('relayer', 330, 1), run('relayer', 310, 1)],
  }
  const rows = settlementRows(runs, { orders, clients: 32 })
  expect(rows.map((row) => [row.name, row.target])).toEqual([
    [`settlement (automine), ${orders} orders, 32 clients`, { op: '>=', value: 0.95 }],
    ['settlement (automine), same, bare baseline', undefined],
    ['chain work: anvil CPU per 1000 orders (automine)', { op: '<=', value: 1.05 }],
    ['relayer CPU per 1000 settled orders, of anvil CPU', undefined],
    ['relayer CPU per 1000 orders once warm (after the first quarter), of anvil CPU', undefined],
    ['least relayer CPU per 1000 settled orders, of anvil CPU serving the relayer', undefined],
  ])
  const table = formatTable(rows)
  expect(printed(table, 'settlement (automine), 100')).toEqual({ target: '>= 0.95', result: 'pass' })
  // 1.6 s against anvil's 2 s: 0.80, printed as information, neither pass nor miss.
  expect(rows[3]!.ratio).toBe(0.8)
  expect(printed(table, 'relayer CPU per 1000 settled orders')).toEqual({ target: '—', result: 'info' })
})

test('the rejection rows print as information, with the answers checked and the CPU per request', () => {
  const runs: RejectionRuns = {
    malformed: [load(30_000, '400'), load(31_000, '400'), load(32_000, '400')],
    belowFloor: [load(24_000, '402'), load(25_000, '402'), load(23_000, '402')],
    bare: [load(49_000, '400'), load(50_000, '400'), load(48_000, '400')],
    leastMalformed: [load(29_000, '400'), load(30_000, '400'), load(28_000, '400')],
    leastBelowFloor: [load(27_000, '402'), load(28_000, '402'), load(26_000, '402')],
  }
  const rows = rejectionRows(runs, { connections: 32, seconds: 5 })
  expect(rows.map((row) => [row.name, row.target, row.pass])).toEqual([
    ['rejections MALFORMED_ORDER, 32 connections', undefined, undefined],
    ['rejections FEE_BELOW_FLOOR, 32 connections', undefined, undefined],
    ['rejections MALFORMED_ORDER, the least relayer (servers/leastRelayer.ts), 32 connections', undefined, undefined],
    ['rejections FEE_BELOW_FLOOR, the least relayer (servers/leastRelayer.ts), 32 connections', undefined, undefined],
  ])
  expect(rows[0]!.checks).toEqual({ '400 answers': '3000/3000', 'server CPU per request': '20.0 µs, baseline 20.0 µs, baseline ÷ this 1.00' })
  expect(printed(formatTable(rows), 'rejections MALFORMED_ORDER, 32')).toEqual({ target: '—', result: 'info' })

  // An answer with the wrong status still fails the row: information, not exempt from its checks.
  const wrong = rejectionRows({ ...runs, malformed: [{ ...load(30_000, '400'), statuses: { 400: 999, 500: 1 } }] }, { connections: 32, seconds: 5 })
  expect(wrong[0]!.failedChecks).toEqual(['1 answers were not 400'])
  expect(printed(formatTable(wrong), 'rejections MALFORMED_ORDER, 32')).toEqual({ target: '—', result: 'MISS' })
})

test('a nonce warning the relayer printed fails the checks with its own words', async () => {
  const { settlementChecks } = await import('../../scripts/bench/lib/settlementRuns.ts')
  const warned = { ...run('relayer', 300), nonceErrors: 1, nonceLines: ['warn: tx 0xab (nonce 7) got no answer from the node and is not known to it; kept in the journal'] }
  const { checks, failedChecks } = settlementChecks([warned, run('relayer', 310)], [run('baseline', 300)], orders)
  expect(checks['nonce errors']).toBe(1)
  expect(failedChecks).toEqual(['1 nonce errors (warn: tx 0xab (nonce 7) got no answer from the node and is not known to it; kept in the journal)'])
})
