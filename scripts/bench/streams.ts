// GET /activity/stream at scale: 1,000 concurrent stream clients (their own process,
// lib/streamClients.ts) on one indexer executable following a chain of 0.25 s blocks
// with registry events in every block, beside the same indexer and chain with one
// client. Per block with events: the time from the block appearing at the node (a
// poller here, every 10 ms) to each client receiving its events; p99 over every client
// and block. The one client follows three times as long (its p99 is over ~4 deliveries
// a second, not ~4,000). Also the indexer's follow rate (blocks indexed per second) and memory.
import { encodeFunctionData, type Hex, maxUint256, numberToHex } from 'viem'
import { lienPoolAbi, mockEIP3009TokenAbi } from '../../src/chain/index.ts'
import { devnetAccounts } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import type { IndexerReadiness } from '../../src/wire/index.ts'
import { type BenchContext, childEnv } from './lib/context.ts'
import { type Child, spawnChild, waitForOk } from './lib/processes.ts'
import { registryAddresses } from './lib/registryEvents.ts'
import { type Row, row } from './lib/report.ts'
import { rpc, rpcBatch } from './lib/rpc.ts'
import { intervalBlockSeconds, startChain } from './lib/settlementWork.ts'
import { percentile, sleep } from './lib/stats.ts'

export type StreamsOptions = { clients: number; seconds: number; eventsPerBlock: number }

type Side = 'clients' | 'one'
type SideRun = { p99: number; p50: number; blocksPerSecond: number; samples: number; rssMiB: number; lagBlocks: number[] }

/**
 * Sends `perBlock` LienPool deposits (one event each) every block time, until stopped;
 * the chain mines them. Nonces are the lender's own, counted here: anvil would give two
 * identical transactions sent at once the same one.
 */
function feedEvents(rpcUrl: string, pool: Hex, perBlock: number, log: (line: string) => void) {
  const from = devnetAccounts.lender.address
  let halted = false
  const running = (async () => {
    let nonce = Number(BigInt(await rpc<Hex>(rpcUrl, 'eth_getTransactionCount', [from, 'pending'])))
    let amount = 1n
    while (!halted) {
      const calls = Array.from({ length: perBlock }, () => ({
        method: 'eth_sendTransaction',
        params: [{ from, to: pool, gas: numberToHex(150_000), nonce: numberToHex(nonce++), data: encodeFunctionData({ abi: lienPoolAbi, functionName: 'deposit', args: [amount++] }) }],
      }))
      try {
        await rpcBatch(rpcUrl, calls)
      } catch (error) {
        log(`streams: sending registry events failed (${error instanceof Error ? error.message : String(error)}); counting nonces from the chain again`)
        nonce = Number(BigInt(await rpc<Hex>(rpcUrl, 'eth_getTransactionCount', [from, 'pending'])))
      }
      await sleep(intervalBlockSeconds * 1000)
    }
  })()
  return async () => {
    halted = true
    await running
  }
}

/** When each block was first seen at the node (a 10 ms poll). */
function watchBlocks(rpcUrl: string) {
  const seen = new Map<string, number>()
  let halted = false
  const running = (async () => {
    while (!halted) {
      const head = BigInt(await rpc<Hex>(rpcUrl, 'eth_blockNumber')).toString()
      if (!seen.has(head)) seen.set(head, performance.timeOrigin + performance.now())
      await sleep(10)
    }
  })()
  return {
    seen,
    async stop() {
      halted = true
      await running
    },
  }
}

export async function benchStreams(context: BenchContext, options: StreamsOptions): Promise<Row[]> {
  const devnet = await startChain(context, 'interval', 10)
  const children: Child[] = []
  try {
    const { pool, payToken } = devnet.manifest.contracts
    const from = devnetAccounts.lender.address
    await rpc(devnet.rpcUrl, 'eth_sendTransaction', [{ from, to: payToken, data: encodeFunctionData({ abi: mockEIP3009TokenAbi, functionName: 'approve', args: [pool, maxUint256] }) }])
    const port = await freePort()
    const indexer = spawnChild(
      [context.exe, 'indexer'],
      childEnv({
        INDEXER_RPC_URL: devnet.rpcUrl,
        INDEXER_CHAIN_ID: String(devnet.chainId),
        INDEXER_ADDRESSES: registryAddresses(devnet).join(','),
        INDEXER_DEPLOYED_AT: devnet.manifest.deployedAt,
        INDEXER_PORT: String(port),
        INDEXER_DB: ':memory:',
        INDEXER_POLL_MS: '50',
        INDEXER_STREAM_MAX_CLIENTS: String(options.clients + 10),
      }),
    )
    children.push(indexer)
    const url = `http://127.0.0.1:${port}`
    await waitForOk(`${url}/ready`, { child: indexer, timeoutMs: 60_000 })
    const stopFeed = feedEvents(devnet.rpcUrl, pool, options.eventsPerBlock, context.log)
    const rssBefore = indexer.rssMiB()

    async function runSide(side: Side): Promise<SideRun> {
      const count = side === 'clients' ? options.clients : 1
      const seconds = side === 'clients' ? options.seconds : 3 * options.seconds
      const blocks = watchBlocks(devnet.rpcUrl)
      const clients = spawnChild([process.execPath, `${import.meta.dir}/lib/streamClients.ts`, `${url}/activity/stream`, String(count), String(seconds * 1000)], {
        ...process.env,
        BUN_CONFIG_MAX_HTTP_REQUESTS: String(Math.max(2048, count + 16)),
      })
      children.push(clients)
      const connectedBy = Date.now() + 60_000
      while (!/connected \d+/.test(clients.output)) {
        if (Date.now() > connectedBy) throw new Error(`stream clients did not connect; output:\n${clients.output}`)
        await sleep(20)
      }
      const windowStart = performance.timeOrigin + performance.now()
      const first = (await (await fetch(`${url}/ready`)).json()) as IndexerReadiness
      const lagBlocks: number[] = []
      let rssMiB = 0
      while (clients.output.split('\n').filter((line) => line.startsWith('{')).length === 0) {
        const ready = (await (await fetch(`${url}/ready`)).json()) as IndexerReadiness
        lagBlocks.push(ready.lagBlocks)
        rssMiB = Math.max(rssMiB, indexer.rssMiB())
        await sleep(250)
      }
      await clients.exited
      const last = (await (await fetch(`${url}/ready`)).json()) as IndexerReadiness
      const windowEnd = performance.timeOrigin + performance.now()
      await blocks.stop()
      const result = JSON.parse(clients.output.split('\n').find((line) => line.startsWith('{'))!) as { received: Record<string, number[]>; counts: number[] }
      const latencies: number[] = []
      for (const [block, times] of Object.entries(result.received)) {
        const seenAt = blocks.seen.get(block)
        // Only blocks that appeared while every client was connected.
        if (seenAt === undefined || seenAt < windowStart) continue
        for (const at of times) latencies.push(at - seenAt)
      }
      if (latencies.length === 0) throw new Error(`no events reached the ${count} stream clients; indexer output:\n${indexer.output.slice(-2000)}`)
      const blocksPerSecond = Number(BigInt(last.indexedThrough) - BigInt(first.indexedThrough)) / ((windowEnd - windowStart) / 1000)
      return { p99: percentile(latencies, 99), p50: percentile(latencies, 50), blocksPerSecond, samples: latencies.length, rssMiB, lagBlocks }
    }

    const runs: Record<Side, SideRun[]> = { clients: [], one: [] }
    for (let run = 0; run < context.runs; run++) {
      for (const side of run % 2 === 0 ? (['one', 'clients'] as const) : (['clients', 'one'] as const)) {
        const result = await runSide(side)
        runs[side].push(result)
        context.log(
          `streams run ${run + 1}: ${side === 'clients' ? `${options.clients} clients` : '1 client'}: delivery p50 ${result.p50.toFixed(0)} ms, p99 ${result.p99.toFixed(0)} ms over ${result.samples} deliveries, ${result.blocksPerSecond.toFixed(2)} blocks/s indexed, indexer RSS ${result.rssMiB.toFixed(0)} MiB`,
        )
      }
    }
    await stopFeed()
    const rssAfter = indexer.rssMiB()
    const failedChecks: string[] = []
    const worstLag = Math.max(...runs.clients.flatMap((result) => result.lagBlocks))
    // Memory bounded: the clients' streams cost the indexer a bounded amount, and it goes back once they leave.
    const peak = Math.max(...runs.clients.map((result) => result.rssMiB))
    if (peak - rssBefore > 256) failedChecks.push(`indexer RSS grew by ${Math.round(peak - rssBefore)} MiB with ${options.clients} streams (more than 256)`)
    const checks = {
      'deliveries measured': runs.clients.map((result) => result.samples).join(', '),
      'worst lag with clients, blocks': worstLag,
      'indexer RSS before, peak with clients, after (MiB)': `${Math.round(rssBefore)}, ${Math.round(peak)}, ${Math.round(rssAfter)}`,
    }
    const blockMs = intervalBlockSeconds * 1000
    const name = `/activity/stream, ${options.clients} clients (${intervalBlockSeconds} s blocks, ${options.eventsPerBlock} events each)`
    return [
      row({
        name: `${name}: delivery p99`,
        unit: 'ms',
        subjectName: `${options.clients} stream clients`,
        baselineName: 'one stream client',
        subject: runs.clients.map((result) => result.p99),
        baseline: runs.one.map((result) => result.p99),
        target: { op: '<=', value: blockMs, of: 'difference' },
        checks,
        failedChecks,
      }),
      row({
        name: `${name}: indexer follow rate`,
        unit: 'blocks/s',
        subjectName: `${options.clients} stream clients`,
        baselineName: 'one stream client',
        subject: runs.clients.map((result) => result.blocksPerSecond),
        baseline: runs.one.map((result) => result.blocksPerSecond),
        target: { op: '>=', value: 0.95 },
        checks,
        failedChecks,
      }),
      row({
        name: `${name}: indexer RSS`,
        unit: 'MiB',
        subjectName: `${options.clients} stream clients`,
        baselineName: 'one stream client',
        subject: runs.clients.map((result) => result.rssMiB),
        baseline: runs.one.map((result) => result.rssMiB),
        checks,
        failedChecks,
      }),
    ]
  } finally {
    for (const child of children) await child.stop()
    await devnet.stop()
  }
}
