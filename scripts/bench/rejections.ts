// Rejections per second: MALFORMED_ORDER and FEE_BELOW_FLOOR bodies from autocannon
// against the relayer executable, beside a hono route on Bun.serve that reads the body
// and parses it as JSON before answering a constant 400 (the baseline executable), same
// connections, same duration.
import { join } from 'node:path'
import { devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { type BenchContext, childEnv } from './lib/context.ts'
import { type LoadResult, autocannon } from './lib/autocannon.ts'
import { presignOrders } from './lib/orders.ts'
import { scratchJournal } from './lib/journal.ts'
import { type Child, spawnChild, waitForOk } from './lib/processes.ts'
import { type Row, row } from './lib/report.ts'

export type RejectionOptions = { connections: number; seconds: number }

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
    const relayer = spawnChild(
      [context.exe, 'relayer'],
      childEnv({
        RELAYER_PK: devnetAccounts.relayer.privateKey,
        RELAYER_CHAIN_ID: String(devnet.chainId),
        RELAYER_RPC_URL: devnet.rpcUrl,
        RELAYER_BROKER: devnet.manifest.contracts.broker,
        RELAYER_PORT: String(relayerPort),
        RELAYER_FEE_FLOOR_BPS: '100',
        RELAYER_DB: join(context.dir, 'rejections.db'),
        ...context.relayerEnv,
      }),
      { keepOutput: 64 * 1024, cwd: context.dir },
    )
    children.push(relayer)
    const bareport = await freePort()
    const bare = spawnChild([context.baselineExe, 'json', String(bareport)], childEnv({}))
    children.push(bare)
    const relayerUrl = `http://127.0.0.1:${relayerPort}`
    await waitForOk(`${relayerUrl}/info`, { child: relayer })
    await waitForOk(`http://127.0.0.1:${bareport}/broker`, { child: bare, expect: 400, method: 'POST' })

    const load = (url: string, body: string) =>
      autocannon({ url, connections: options.connections, seconds: options.seconds, method: 'POST', body, headers: json })
    const runs = { malformed: [] as LoadResult[], belowFloor: [] as LoadResult[], bare: [] as LoadResult[] }
    // Short warm-up of each, then the measured runs in rotating order.
    await load(`${relayerUrl}/broker`, malformed)
    await load(`http://127.0.0.1:${bareport}/broker`, malformed)
    for (let run = 0; run < context.runs; run++) {
      const order = (['malformed', 'belowFloor', 'bare'] as const).map((_, i, all) => all[(i + run) % all.length]!)
      for (const side of order) {
        const result =
          side === 'bare' ? await load(`http://127.0.0.1:${bareport}/broker`, malformed) : await load(`${relayerUrl}/broker`, side === 'malformed' ? malformed : belowFloor)
        runs[side].push(result)
        context.log(`rejections run ${run + 1}: ${side} ${result.perSecond.toFixed(0)} req/s ${JSON.stringify(result.statuses)}`)
      }
    }
    const rowFor = (name: string, results: LoadResult[], status: string) => {
      const total = results.reduce((sum, result) => sum + result.total, 0)
      const expected = results.reduce((sum, result) => sum + (result.statuses[status] ?? 0), 0)
      const errors = results.reduce((sum, result) => sum + result.errors + result.timeouts, 0)
      const failed: string[] = []
      if (expected !== total) failed.push(`${total - expected} answers were not ${status}`)
      if (errors) failed.push(`${errors} connection errors or timeouts`)
      return row({
        name: `rejections ${name}, ${options.connections} connections`,
        unit: 'req/s',
        subjectName: 'POST /broker',
        baselineName: 'hono: body read, JSON.parse, constant 400',
        subject: results.map((result) => result.perSecond),
        baseline: runs.bare.map((result) => result.perSecond),
        target: { op: '>=', value: 0.7 },
        checks: { [`${status} answers`]: `${expected}/${total}` },
        failedChecks: failed,
      })
    }
    return [rowFor('MALFORMED_ORDER', runs.malformed, '400'), rowFor('FEE_BELOW_FLOOR', runs.belowFloor, '402')]
  } finally {
    for (const child of children) await child.stop()
    await devnet.stop()
    journal.remove()
  }
}
