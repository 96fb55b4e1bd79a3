// GET /activity with a full retention of events: requests per second from autocannon
// against the indexer executable, beside the same bytes served from a static Bun
// route (the baseline executable). Also the indexer process's resident memory.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Devnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import type { ActivitySnapshot } from '../../src/wire/index.ts'
import { type LoadResult, autocannon } from './lib/autocannon.ts'
import { type BenchContext, childEnv } from './lib/context.ts'
import { type Child, spawnChild, waitForOk } from './lib/processes.ts'
import { registryAddresses } from './lib/registryEvents.ts'
import { type Row, row } from './lib/report.ts'
import { sleep } from './lib/stats.ts'

export type ActivityOptions = { connections: number; seconds: number; retention: number }

/** Polls GET /activity until the indexer has caught up with `head`; returns the body. */
async function caughtUp(url: string, head: bigint, child: Child): Promise<{ text: string; snapshot: ActivitySnapshot }> {
  const deadline = Date.now() + 120_000
  for (;;) {
    const response = await fetch(`${url}/activity`)
    const text = await response.text()
    const snapshot = JSON.parse(text) as ActivitySnapshot
    if (BigInt(snapshot.indexedThrough) >= head) return { text, snapshot }
    if (Date.now() > deadline) throw new Error(`the indexer did not catch up with block ${head}; output:\n${child.output}`)
    await sleep(100)
  }
}

export async function benchActivity(
  context: BenchContext,
  devnet: Devnet,
  head: bigint,
  options: ActivityOptions,
): Promise<{ row: Row; rssMiB: number; peakRssMiB: number; bodyBytes: number }> {
  const children: Child[] = []
  try {
    const port = await freePort()
    const indexer = spawnChild(
      [context.exe, 'indexer'],
      childEnv({
        INDEXER_RPC_URL: devnet.rpcUrl,
        INDEXER_CHAIN_ID: String(devnet.chainId),
        INDEXER_ADDRESSES: registryAddresses(devnet).join(','),
        INDEXER_DEPLOYED_AT: devnet.manifest.deployedAt,
        INDEXER_PORT: String(port),
        INDEXER_RETENTION: String(options.retention),
        INDEXER_DB: ':memory:',
      }),
    )
    children.push(indexer)
    const url = `http://127.0.0.1:${port}`
    await waitForOk(`${url}/health`, { child: indexer })
    const { text, snapshot } = await caughtUp(url, head, indexer)
    // Memory of the process holding the full retention, before any load.
    const rssMiB = indexer.rssMiB()

    const file = join(context.dir, 'activity.json')
    writeFileSync(file, text)
    const staticPort = await freePort()
    const bare = spawnChild([context.baselineExe, 'static', String(staticPort), file], childEnv({}))
    children.push(bare)
    await waitForOk(`http://127.0.0.1:${staticPort}/activity`, { child: bare })
    const same = await (await fetch(`http://127.0.0.1:${staticPort}/activity`)).text()
    const failed: string[] = []
    if (same !== text) failed.push('the static route does not serve the same bytes')
    if (snapshot.events.length !== options.retention) failed.push(`the snapshot holds ${snapshot.events.length} events`)

    const load = (target: string) => autocannon({ url: `${target}/activity`, connections: options.connections, seconds: options.seconds })
    const runs = { indexer: [] as LoadResult[], bare: [] as LoadResult[] }
    await load(url)
    await load(`http://127.0.0.1:${staticPort}`)
    for (let run = 0; run < context.runs; run++) {
      for (const side of run % 2 === 0 ? (['indexer', 'bare'] as const) : (['bare', 'indexer'] as const)) {
        const result = await load(side === 'indexer' ? url : `http://127.0.0.1:${staticPort}`)
        runs[side].push(result)
        context.log(`activity run ${run + 1}: ${side} ${result.perSecond.toFixed(0)} req/s ${JSON.stringify(result.statuses)}`)
      }
    }
    const total = runs.indexer.reduce((sum, result) => sum + result.total, 0)
    const ok = runs.indexer.reduce((sum, result) => sum + (result.statuses['200'] ?? 0), 0)
    if (ok !== total) failed.push(`${total - ok} answers were not 200`)
    return {
      row: row({
        name: `GET /activity, ${snapshot.events.length} events (${(text.length / 2 ** 20).toFixed(1)} MiB), ${options.connections} connections`,
        unit: 'req/s',
        subjectName: 'indexer',
        baselineName: 'same bytes, static Bun route',
        subject: runs.indexer.map((result) => result.perSecond),
        baseline: runs.bare.map((result) => result.perSecond),
        target: { op: '>=', value: 0.8 },
        checks: { '200 answers': `${ok}/${total}`, truncated: snapshot.truncated },
        failedChecks: failed,
      }),
      rssMiB,
      peakRssMiB: indexer.peakRssMiB(),
      bodyBytes: text.length,
    }
  } finally {
    for (const child of children) await child.stop()
  }
}
