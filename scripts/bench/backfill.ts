// Indexer backfill: time from start to indexedThrough == head over a chain holding
// N registry events, against a bare chunked eth_getLogs loop over the same range
// (same chunk size as the indexer's INDEXER_MAX_RANGE default, raw JSON-RPC, no decoding).
import { type Hex, numberToHex } from 'viem'
import type { Devnet } from '../../src/devnet/index.ts'
import { createIndexer, indexerDefaults, readIndexerConfig } from '../../src/indexer/index.ts'
import { silentLogger } from '../../src/shared/index.ts'
import type { BenchContext } from './lib/context.ts'
import { registryAddresses } from './lib/registryEvents.ts'
import { type Row, row } from './lib/report.ts'
import { rpc } from './lib/rpc.ts'
import { pairByPair, sleep } from './lib/stats.ts'

/** The bare loop: every log of the four addresses from deployedAt to head, in chunks. */
async function bareLoop(devnet: Devnet, head: bigint, chunk: bigint): Promise<{ ms: number; logs: number }> {
  const address = registryAddresses(devnet)
  const started = performance.now()
  let logs = 0
  for (let from = BigInt(devnet.manifest.deployedAt); from <= head; from += chunk) {
    const to = from + chunk - 1n < head ? from + chunk - 1n : head
    const found = await rpc<unknown[]>(devnet.rpcUrl, 'eth_getLogs', [{ address, fromBlock: numberToHex(from), toBlock: numberToHex(to) }])
    logs += found.length
  }
  return { ms: performance.now() - started, logs }
}

/** The real indexer (in this process, default settings) from `serve()` to indexedThrough == head. */
async function indexerRun(devnet: Devnet, head: bigint): Promise<{ ms: number; events: number; truncated: boolean }> {
  const config = readIndexerConfig(
    {},
    // An empty store each run: a backfill, not a restart (scripts/bench/restart.ts measures those).
    { chainId: devnet.chainId, rpcUrl: devnet.rpcUrl, addresses: registryAddresses(devnet), deployedAt: BigInt(devnet.manifest.deployedAt), host: '127.0.0.1', port: 0, db: ':memory:' },
  )
  const indexer = createIndexer(config, { logger: silentLogger })
  const started = performance.now()
  const server = await indexer.serve()
  try {
    while (indexer.sync.status().indexedThrough < head) await sleep(1)
    const ms = performance.now() - started
    const status = indexer.sync.status()
    return { ms, events: status.events.length, truncated: status.truncated }
  } finally {
    await server.stop()
  }
}

export async function benchBackfill(context: BenchContext, devnet: Devnet, events: number): Promise<Row> {
  const head = BigInt(await rpc<Hex>(devnet.rpcUrl, 'eth_blockNumber'))
  const chunk = BigInt(indexerDefaults.maxRange)
  const subject: number[] = []
  const baseline: number[] = []
  const failed = new Set<string>()
  let logs = 0
  // One warm-up of each (anvil caches, JIT), then the measured runs in alternating order.
  // Three times the bench's runs: each lasts half a second, where the machine's speed
  // drifts by a third within a minute: five pairs of one run can read 1.50 where two
  // runs a minute later read 1.19 and 1.20.
  await bareLoop(devnet, head, chunk)
  await indexerRun(devnet, head)
  for (let run = 0; run < context.runs * 3; run++) {
    for (const side of run % 2 === 0 ? ['bare', 'indexer'] : ['indexer', 'bare']) {
      if (side === 'bare') {
        const result = await bareLoop(devnet, head, chunk)
        baseline.push(result.ms)
        logs = result.logs
        context.log(`backfill run ${run + 1}: bare eth_getLogs loop ${result.ms.toFixed(0)} ms (${result.logs} logs)`)
      } else {
        const result = await indexerRun(devnet, head)
        subject.push(result.ms)
        if (result.events !== indexerDefaults.retention || !result.truncated) failed.add(`indexer holds ${result.events} events (truncated ${result.truncated})`)
        context.log(`backfill run ${run + 1}: indexer ${result.ms.toFixed(0)} ms`)
      }
    }
  }
  if (logs < events) failed.add(`the chain holds ${logs} registry logs, fewer than ${events}`)
  return row({
    name: `indexer backfill, ${logs} events, ${head} blocks`,
    unit: 'ms',
    subjectName: 'indexer to indexedThrough == head',
    baselineName: `eth_getLogs loop, ${chunk}-block chunks`,
    subject,
    baseline,
    target: { op: '<=', value: 1.3 },
    checks: { 'registry logs': logs, 'events held': indexerDefaults.retention, 'pair by pair': pairByPair(subject, baseline) },
    failedChecks: [...failed],
  })
}
