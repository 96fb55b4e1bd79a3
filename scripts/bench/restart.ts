// Indexer restart: with 50,000 events in the store (INDEXER_DB), the time from
// creating the indexer to the first fresh `GET /activity` answer (stale false,
// indexedThrough == head) and the eth_getLogs calls it made; beside a cold start
// over the same chain with an empty store (`:memory:`), which is what a start costs
// without a store. Target: ≤ 0.2 s and zero eth_getLogs.
import { join } from 'node:path'
import { createPublicClient, type Hex, http, type PublicClient, type Transport } from 'viem'
import { chainFor } from '../../src/chain/index.ts'
import type { Devnet } from '../../src/devnet/index.ts'
import { createIndexer, indexerDefaults, readIndexerConfig } from '../../src/indexer/index.ts'
import { silentLogger } from '../../src/shared/index.ts'
import type { BenchContext } from './lib/context.ts'
import { registryAddresses } from './lib/registryEvents.ts'
import { type Row, row } from './lib/report.ts'
import { rpc } from './lib/rpc.ts'
import { median, sleep } from './lib/stats.ts'

/** A client counting the JSON-RPC methods it sends. */
function countingClient(devnet: Devnet, counts: Map<string, number>): PublicClient {
  const inner = http(devnet.rpcUrl, { retryCount: 0, timeout: 30_000, maxResponseBodySize: 256 * 2 ** 20 })
  const transport: Transport = (parameters) => {
    const made = inner(parameters)
    return {
      ...made,
      request: (async (args: { method: string }) => {
        counts.set(args.method, (counts.get(args.method) ?? 0) + 1)
        return made.request(args as never)
      }) as typeof made.request,
    }
  }
  return createPublicClient({ chain: chainFor(devnet.chainId, devnet.rpcUrl), transport, cacheTime: 0 }) as PublicClient
}

/** Creates and serves an indexer on `db`; resolves when GET /activity first answers fresh at `head`. */
async function untilFresh(devnet: Devnet, head: bigint, db: string, retention: number) {
  const counts = new Map<string, number>()
  // A real restart is a new process with an empty heap. Here the indexer restarts inside the
  // bench process, which still holds the garbage of the run before (a cold start's 13 MiB
  // bodies and 50,000 event objects): collected before the clock starts, not in a GC pause
  // that the restart would otherwise pay at a random point (runs of 105–264 ms without).
  Bun.gc(true)
  const started = performance.now()
  const config = readIndexerConfig(
    {},
    { chainId: devnet.chainId, rpcUrl: devnet.rpcUrl, addresses: registryAddresses(devnet), deployedAt: BigInt(devnet.manifest.deployedAt), host: '127.0.0.1', port: 0, pollMs: 1, retention, db },
  )
  const indexer = createIndexer(config, { logger: silentLogger, client: countingClient(devnet, counts) })
  const server = await indexer.serve()
  try {
    for (;;) {
      // /ready is cheap to poll; the clock stops once a whole /activity body says fresh.
      if ((await fetch(`${server.url}/ready`)).status !== 200) {
        await sleep(1)
        continue
      }
      const body = await (await fetch(`${server.url}/activity`)).text()
      // The answer has arrived; checking that it is fresh is the benchmark's own work, not the indexer's.
      const ms = performance.now() - started
      const snapshot = JSON.parse(body) as { stale: boolean; indexedThrough: string; events: unknown[] }
      if (!snapshot.stale && snapshot.indexedThrough === head.toString()) {
        return { ms, getLogs: counts.get('eth_getLogs') ?? 0, events: snapshot.events.length }
      }
    }
  } finally {
    await server.stop()
  }
}

export async function benchRestart(context: BenchContext, devnet: Devnet, events: number): Promise<Row> {
  const head = BigInt(await rpc<Hex>(devnet.rpcUrl, 'eth_blockNumber'))
  const db = join(context.dir, 'restart-index.sqlite')
  // Fill the store once: every event kept, so a restart holds all of them.
  const filled = await untilFresh(devnet, head, db, events)
  context.log(`restart: store filled with ${filled.events} events in ${filled.ms.toFixed(0)} ms (${filled.getLogs} eth_getLogs)`)
  const subject: number[] = []
  const baseline: number[] = []
  const failed = new Set<string>()
  let getLogs = 0
  for (let run = 0; run < context.runs; run++) {
    const restart = await untilFresh(devnet, head, db, events)
    subject.push(restart.ms)
    getLogs = Math.max(getLogs, restart.getLogs)
    if (restart.events !== filled.events) failed.add(`the restart served ${restart.events} events, not ${filled.events}`)
    const cold = await untilFresh(devnet, head, ':memory:', events)
    baseline.push(cold.ms)
    context.log(`restart run ${run + 1}: restart ${restart.ms.toFixed(0)} ms (${restart.getLogs} eth_getLogs), cold start ${cold.ms.toFixed(0)} ms (${cold.getLogs} eth_getLogs)`)
  }
  // The same restart at the default retention (the newest 10,000 of them served and stored).
  const defaultDb = join(context.dir, 'restart-default.sqlite')
  await untilFresh(devnet, head, defaultDb, indexerDefaults.retention)
  const atDefault: number[] = []
  for (let run = 0; run < context.runs; run++) atDefault.push((await untilFresh(devnet, head, defaultDb, indexerDefaults.retention)).ms)
  context.log(`restart at the default retention: ${atDefault.map((ms) => ms.toFixed(0)).join(', ')} ms`)
  if (getLogs > 0) failed.add(`${getLogs} eth_getLogs for blocks already indexed`)
  const middle = median(subject)
  if (middle > 200) failed.add(`restart median ${middle.toFixed(0)} ms > 200 ms`)
  if (filled.events < events) failed.add(`the store holds ${filled.events} events, fewer than ${events}`)
  return row({
    name: `indexer restart, ${filled.events} events stored`,
    unit: 'ms',
    subjectName: 'restart to first fresh /activity',
    baselineName: 'cold start (empty store) to first fresh /activity',
    subject,
    baseline,
    target: { op: '<=', value: 0.5 },
    checks: {
      'eth_getLogs on restart': getLogs,
      'events stored': filled.events,
      'target ms': 200,
      [`restart ms at retention ${indexerDefaults.retention}`]: Math.round(median(atDefault)),
    },
    failedChecks: [...failed],
  })
}
