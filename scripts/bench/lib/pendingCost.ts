// What a simulation at `pending` costs anvil when its pool holds txs, against the same
// batch at `latest`, and against a batch at `latest` that replays pooled orders ahead of
// its own (the cost a simulation that sees the key's pending txs without `pending` would
// pay). For scripts/pending-simulation-cost.ts; the numbers behind the 0.25 s-blocks
// row's two states in docs/benchmarks.md.
import { type Hex, parseGwei } from 'viem'
import { devnetAccounts } from '../../../src/devnet/index.ts'
import { batchGas, callBatch } from '../../../src/relayer/simulation/batchCall.ts'
import { executionGas } from '../../../src/chain/intrinsicGas.ts'
import type { BenchContext } from './context.ts'
import { cpuSeconds } from './cpu.ts'
import { brokerCalldata } from './orders.ts'
import { rpc } from './rpc.ts'
import { prepareWork, startChain } from './settlementWork.ts'

export type PendingCostOptions = { pools: readonly number[]; batch: number; reps: number }

/** Per call, the mean over `reps` calls: wall ms and anvil CPU ms. */
export type CallCost = { wallMs: number; anvilMs: number }

export type PendingCost = {
  pool: number
  pending: CallCost
  latest: CallCost
  /** The batch at `latest` with `replayed` of the pooled orders run ahead of it. */
  replay: CallCost & { replayed: number }
  /** anvil CPU ms per pooled tx at `pending`, and per replayed order at `latest`. */
  perPooledTxMs: number
  perReplayedOrderMs: number
}

/** The most gas one eth_call may ask of anvil (its block gas limit). */
const callGasCap = 30_000_000n
/** Replayed orders per call at most: past a few hundred results, the batch's memory runs out of gas. */
const maxReplayed = 128

export async function measurePendingCost(context: BenchContext, options: PendingCostOptions): Promise<PendingCost[]> {
  const { batch, reps } = options
  const maxPool = Math.max(...options.pools)
  // Sender i's first tx is order i, so the pool's orders are orders 0..pool-1; the batch's come after.
  const work = await prepareWork(context, 'automine', { orders: maxPool + batch, clients: Math.max(maxPool, 1), label: 'pending cost', baseline: true })
  const results: PendingCost[] = []
  for (const pool of options.pools) {
    const devnet = await startChain(context, 'automine', maxPool + batch)
    try {
      const broker = devnet.manifest.contracts.broker
      const address = devnetAccounts.relayer.address
      const probe = brokerCalldata(work.requests[0]!)
      const estimate = await devnet.publicClient.estimateGas({ account: address, to: broker, data: probe })
      const gas = (estimate * 13n) / 10n + 25_000n
      const item = (index: number) => {
        const data = brokerCalldata(work.requests[index]!)
        return { data, executionGas: executionGas(data, gas)! }
      }
      const own = Array.from({ length: batch }, (_, i) => item(maxPool + i))
      for (const sender of work.txs.addresses.slice(0, pool)) await devnet.testClient.setBalance({ address: sender, value: 10n ** 22n })
      await devnet.testClient.setAutomine(false)
      for (const list of work.txs.perSender.slice(0, pool)) await rpc(devnet.rpcUrl, 'eth_sendRawTransaction', [list[0]!])
      const { pending: inPool } = await rpc<{ pending: Hex }>(devnet.rpcUrl, 'txpool_status')
      if (Number(inPool) !== pool) throw new Error(`the pool holds ${Number(inPool)} txs, not ${pool}`)
      const fees = { maxFeePerGas: parseGwei('50'), maxPriorityFeePerGas: parseGwei('1') }
      const client = devnet.publicClient
      const timed = async (items: typeof own, blockTag: 'pending' | 'latest'): Promise<CallCost> => {
        const cpuBefore = cpuSeconds(devnet.anvilPid)
        const started = performance.now()
        for (let rep = 0; rep < reps; rep++) {
          const answers = await callBatch(client, address, broker, items, fees, blockTag)
          // The batch's own orders must pass, or the call measured something else.
          const failed = answers.slice(-batch).filter((answer) => !answer?.ok).length
          if (failed) throw new Error(`${failed} of the batch's ${batch} orders did not pass at ${blockTag}`)
        }
        return { wallMs: (performance.now() - started) / reps, anvilMs: ((cpuSeconds(devnet.anvilPid) - cpuBefore) * 1000) / reps }
      }
      // As many of the pooled orders as fit under the call's gas cap with the batch's own.
      const replayItems = [...Array.from({ length: Math.min(pool, maxReplayed) }, (_, i) => item(i)), ...own]
      while (replayItems.length > own.length && batchGas(replayItems) > callGasCap) replayItems.splice(replayItems.length - own.length - 1, 1)
      const replayed = replayItems.length - own.length
      // A call of each first, so neither side pays a cold start.
      await timed(own, 'pending')
      await timed(own, 'latest')
      const pending = await timed(own, 'pending')
      const latest = await timed(own, 'latest')
      const replay = { ...(await timed(replayItems, 'latest')), replayed }
      results.push({
        pool,
        pending,
        latest,
        replay,
        perPooledTxMs: pool ? (pending.anvilMs - latest.anvilMs) / pool : 0,
        perReplayedOrderMs: replayed ? (replay.anvilMs - latest.anvilMs) / replayed : 0,
      })
    } finally {
      await devnet.stop()
    }
  }
  return results
}
