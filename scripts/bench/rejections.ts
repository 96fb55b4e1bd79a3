// Rejections per second: MALFORMED_ORDER and FEE_BELOW_FLOOR bodies from autocannon
// against the relayer executable, beside a hono route on Bun.serve that reads the body
// and parses it as JSON before answering a constant 400 (the baseline executable), same
// connections, same duration. The least relayer (servers/leastRelayer.ts: the relayer's
// three checks and an access line on a bare Bun.serve route) takes the same bodies as
// information rows: the least a relayer's rejection can cost. Every run also reads the
// serving process's CPU (/proc), so each row gives µs of server CPU per request beside
// the throughput: a steadier measure on this machine than req/s (docs/benchmarks.md).
import { join } from 'node:path'
import { devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { type BenchContext, childEnv } from './lib/context.ts'
import { cpuSeconds } from './lib/cpu.ts'
import { type LoadResult, autocannon } from './lib/autocannon.ts'
import { presignOrders } from './lib/orders.ts'
import { scratchJournal } from './lib/journal.ts'
import { type Child, spawnChild, waitForOk } from './lib/processes.ts'
import { type Row, row } from './lib/report.ts'
import { median } from './lib/stats.ts'

export type RejectionOptions = { connections: number; seconds: number }

/** One load run against one server, with the server's CPU over it. */
export type Measured = LoadResult & { cpuUsPerRequest: number }

/** Each side's runs: the relayer's two bodies, the least relayer's two, the baseline route. */
export type RejectionRuns = Record<'malformed' | 'belowFloor' | 'bare' | 'leastMalformed' | 'leastBelowFloor', Measured[]>

const json = { 'content-type': 'application/json' }

export async function benchRejections(context: BenchContext, options: RejectionOptions): Promise<Row[]> {
  const devnet = await startDevnet()
  const journal = scratchJournal()
  const children: Child[] = []
  try {
    // A well-formed signed order with feeBps 50 against a floor of 100, and the same order with a fractional amount.
    const [request] = await presignOrders(devnet, 1, { feeBps: 50, label: 'rejections' })
    const belowFloor = JSON.stringify(request)
    const malformed = JSON.stringify({ ...request, order: { ...request!.order, amount: '10.5' } })

    const relayerPort = await freePort()
    const leastPort = await freePort()
    const relayerEnv = {
      RELAYER_PK: devnetAccounts.relayer.privateKey,
      RELAYER_CHAIN_ID: String(devnet.chainId),
      RELAYER_RPC_URL: devnet.rpcUrl,
      RELAYER_BROKER: devnet.manifest.contracts.broker,
      RELAYER_FEE_FLOOR_BPS: '100',
    }
    const relayer = spawnChild(
      [context.exe, 'relayer'],
      childEnv({ ...relayerEnv, RELAYER_PORT: String(relayerPort), RELAYER_DB: join(context.dir, 'rejections.db'), ...context.relayerEnv }),
      { keepOutput: 64 * 1024, cwd: context.dir },
    )
    children.push(relayer)
    const least = spawnChild(
      [context.leastRelayerExe],
      childEnv({ ...relayerEnv, RELAYER_WS_URL: devnet.rpcUrl.replace(/^http/, 'ws'), RELAYER_PORT: String(leastPort), RELAYER_DB: join(context.dir, 'rejections-least.db') }),
      { keepOutput: 64 * 1024, cwd: context.dir },
    )
    children.push(least)
    const bareport = await freePort()
    const bare = spawnChild([context.baselineExe, 'json', String(bareport)], childEnv({}))
    children.push(bare)
    const relayerUrl = `http://127.0.0.1:${relayerPort}`
    const leastUrl = `http://127.0.0.1:${leastPort}`
    const bareUrl = `http://127.0.0.1:${bareport}`
    await waitForOk(`${relayerUrl}/info`, { child: relayer })
    await waitForOk(`${leastUrl}/info`, { child: least })
    await waitForOk(`${bareUrl}/broker`, { child: bare, expect: 400, method: 'POST' })

    const load = async (server: Child, url: string, body: string): Promise<Measured> => {
      const before = cpuSeconds(server.pid)
      const result = await autocannon({ url: `${url}/broker`, connections: options.connections, seconds: options.seconds, method: 'POST', body, headers: json })
      return { ...result, cpuUsPerRequest: ((cpuSeconds(server.pid) - before) * 1e6) / Math.max(1, result.total) }
    }
    const sides = {
      malformed: () => load(relayer, relayerUrl, malformed),
      belowFloor: () => load(relayer, relayerUrl, belowFloor),
      bare: () => load(bare, bareUrl, malformed),
      leastMalformed: () => load(least, leastUrl, malformed),
      leastBelowFloor: () => load(least, leastUrl, belowFloor),
    }
    type Side = keyof typeof sides
    const names = Object.keys(sides) as Side[]
    const runs = Object.fromEntries(names.map((name) => [name, [] as Measured[]])) as Record<Side, Measured[]>
    // Short warm-up of each server, then the measured runs in rotating order.
    await sides.malformed()
    await sides.bare()
    await sides.leastMalformed()
    for (let run = 0; run < context.runs; run++) {
      for (const side of names.map((_, i) => names[(i + run) % names.length]!)) {
        const result = await sides[side]()
        runs[side].push(result)
        context.log(`rejections run ${run + 1}: ${side} ${result.perSecond.toFixed(0)} req/s, ${result.cpuUsPerRequest.toFixed(1)} µs server CPU per request ${JSON.stringify(result.statuses)}`)
      }
    }
    return rejectionRows(runs, options)
  } finally {
    for (const child of children) await child.stop()
    await devnet.stop()
    journal.remove()
  }
}

/**
 * The rejection rows, information without a target: on 2 cores even the least relayer
 * (servers/leastRelayer.ts) stays under 0.7 of the bare hono route once a rejection pays
 * for the content type, the body limits, the drain and the metrics (docs/benchmarks.md,
 * "The targets"). Each row's checks hold every answer to its status and give the server
 * CPU per request beside the baseline's.
 */
export function rejectionRows(runs: RejectionRuns, options: RejectionOptions): Row[] {
  const bareCpu = median(runs.bare.map((result) => result.cpuUsPerRequest))
  const rowFor = (name: string, results: Measured[], status: string) => {
    const total = results.reduce((sum, result) => sum + result.total, 0)
    const expected = results.reduce((sum, result) => sum + (result.statuses[status] ?? 0), 0)
    const errors = results.reduce((sum, result) => sum + result.errors + result.timeouts, 0)
    const failed: string[] = []
    if (expected !== total) failed.push(`${total - expected} answers were not ${status}`)
    if (errors) failed.push(`${errors} connection errors or timeouts`)
    const cpu = median(results.map((result) => result.cpuUsPerRequest))
    return row({
      name: `rejections ${name}, ${options.connections} connections`,
      unit: 'req/s',
      subjectName: 'POST /broker',
      baselineName: 'hono: body read, JSON.parse, constant 400',
      subject: results.map((result) => result.perSecond),
      baseline: runs.bare.map((result) => result.perSecond),
      checks: {
        [`${status} answers`]: `${expected}/${total}`,
        // µs of the serving process's CPU per request (medians of the runs); the baseline's over the CPU figure of the row's server.
        'server CPU per request': `${cpu.toFixed(1)} µs, baseline ${bareCpu.toFixed(1)} µs, baseline ÷ this ${(bareCpu / cpu).toFixed(2)}`,
      },
      failedChecks: failed,
    })
  }
  return [
    rowFor('MALFORMED_ORDER', runs.malformed, '400'),
    rowFor('FEE_BELOW_FLOOR', runs.belowFloor, '402'),
    rowFor('MALFORMED_ORDER, the least relayer (servers/leastRelayer.ts)', runs.leastMalformed, '400'),
    rowFor('FEE_BELOW_FLOOR, the least relayer (servers/leastRelayer.ts)', runs.leastBelowFloor, '402'),
  ]
}
