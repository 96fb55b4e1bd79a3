// GET /activity served by a read replica from PostgreSQL (INDEXER_DATABASE_URL, another
// process is the writer) against the same route of an indexer on its embedded store:
// requests per second from autocannon, both executables holding the same events.
import type { Devnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import type { ActivitySnapshot, IndexerReadiness } from '../../src/wire/index.ts'
import { postgresMissing, startPostgres } from '../lib/index.ts'
import { type LoadResult, autocannon } from './lib/autocannon.ts'
import { type BenchContext, childEnv } from './lib/context.ts'
import { type Child, spawnChild, waitForOk } from './lib/processes.ts'
import { registryAddresses } from './lib/registryEvents.ts'
import { type Row, row } from './lib/report.ts'
import { sleep } from './lib/stats.ts'

export type ReplicaOptions = { connections: number; seconds: number; retention: number }

/** Polls `/activity` until it serves events through `head`; returns the body. */
async function servesThrough(url: string, head: bigint, child: Child): Promise<string> {
  const deadline = Date.now() + 180_000
  for (;;) {
    const text = await (await fetch(`${url}/activity`)).text()
    if (BigInt((JSON.parse(text) as ActivitySnapshot).indexedThrough) >= head) return text
    if (Date.now() > deadline) throw new Error(`the indexer did not serve block ${head}; output:\n${child.output}`)
    await sleep(100)
  }
}

export async function benchReplica(context: BenchContext, devnet: Devnet, head: bigint, options: ReplicaOptions): Promise<Row[]> {
  if (postgresMissing) {
    context.log(`replica: skipped: ${postgresMissing}`)
    return []
  }
  const postgres = await startPostgres('bench')
  const children: Child[] = []
  try {
    const base = {
      INDEXER_RPC_URL: devnet.rpcUrl,
      INDEXER_CHAIN_ID: String(devnet.chainId),
      INDEXER_ADDRESSES: registryAddresses(devnet).join(','),
      INDEXER_DEPLOYED_AT: devnet.manifest.deployedAt,
      INDEXER_RETENTION: String(options.retention),
    }
    const start = async (extra: Record<string, string>) => {
      const port = await freePort()
      const child = spawnChild([context.exe, 'indexer'], childEnv({ ...base, ...extra, INDEXER_PORT: String(port) }))
      children.push(child)
      const url = `http://127.0.0.1:${port}`
      await waitForOk(`${url}/health`, { child })
      return { url, child }
    }
    const writer = await start({ INDEXER_DATABASE_URL: postgres.url })
    await servesThrough(writer.url, head, writer.child)
    const reader = await start({ INDEXER_DATABASE_URL: postgres.url })
    const embedded = await start({ INDEXER_DB: ':memory:' })
    const [readerText, embeddedText] = [await servesThrough(reader.url, head, reader.child), await servesThrough(embedded.url, head, embedded.child)]
    const role = ((await (await fetch(`${reader.url}/ready`)).json()) as IndexerReadiness).role
    const failed: string[] = []
    if (role !== 'reader') failed.push(`the second process is ${role ?? 'no replica'}, not a reader`)
    if (readerText !== embeddedText) failed.push('the reader and the embedded indexer serve different bytes')

    const load = (url: string) => autocannon({ url: `${url}/activity`, connections: options.connections, seconds: options.seconds })
    const runs = { reader: [] as LoadResult[], embedded: [] as LoadResult[] }
    await load(reader.url)
    await load(embedded.url)
    for (let run = 0; run < context.runs; run++) {
      for (const side of run % 2 === 0 ? (['reader', 'embedded'] as const) : (['embedded', 'reader'] as const)) {
        const result = await load(side === 'reader' ? reader.url : embedded.url)
        runs[side].push(result)
        context.log(`replica run ${run + 1}: ${side} ${result.perSecond.toFixed(0)} req/s ${JSON.stringify(result.statuses)}`)
      }
    }
    const total = runs.reader.reduce((sum, result) => sum + result.total, 0)
    const ok = runs.reader.reduce((sum, result) => sum + (result.statuses['200'] ?? 0), 0)
    if (ok !== total) failed.push(`${total - ok} answers were not 200`)
    const events = (JSON.parse(readerText) as ActivitySnapshot).events.length
    return [
      row({
        name: `GET /activity from a PostgreSQL read replica, ${events} events, ${options.connections} connections`,
        unit: 'req/s',
        subjectName: 'reader (INDEXER_DATABASE_URL, Bun.SQL)',
        baselineName: 'embedded store (INDEXER_DB)',
        subject: runs.reader.map((result) => result.perSecond),
        baseline: runs.embedded.map((result) => result.perSecond),
        checks: { '200 answers': `${ok}/${total}`, role: role ?? 'none' },
        failedChecks: failed,
      }),
    ]
  } finally {
    for (const child of children) await child.stop()
    await postgres.stop()
  }
}
