import type { Address, Hex, PublicClient } from 'viem'
import type { Logger } from '../../shared/index.ts'
import { isTransportError, nodeSays } from '../rpcErrors.ts'
import { type BatchItem, type BatchItemResult, batchGas, callBatch, type Fees, itemGas } from './batchCall.ts'
import { cannotPay } from './cannotPay.ts'
import { executionGas } from './intrinsicGas.ts'

/** A call that reverted inside a batch: carries its revert data as a node's error would. */
export class BatchedRevertError extends Error {
  override name = 'BatchedRevertError'
  constructor(readonly data: Hex) {
    super('execution reverted')
  }
}

export type PendingSimulator = {
  /**
   * Runs the broker call `data` with `gas` and `fees` from the relayer's address against
   * the `pending` block. Resolves undefined when it passes, else with the error: the
   * node's, or a BatchedRevertError when it ran in a batch.
   */
  call(data: Hex, gas: bigint, fees: Fees): Promise<unknown>
  /** The same, always its own `eth_call` (an order's second try at its own gas limit). */
  callAlone(data: Hex, gas: bigint, fees: Fees): Promise<unknown>
  /** Calls made so far: alone, in batches, and the batches themselves. */
  readonly counts: { single: number; batched: number; batches: number }
}

export type PendingSimulatorOptions = {
  client: PublicClient
  address: Address
  broker: Address
  logger: Logger
  /** Simulation calls at the node at once (default 2); more orders wait and go in one batch. */
  maxInFlight?: number
  maxBatch?: number
  /** The most gas one batch call may ask for (nodes cap an eth_call's gas). */
  maxBatchGas?: bigint
}

type Waiting = { data: Hex; gas: bigint; fees: Fees; resolve: (error: unknown) => void }

/**
 * Simulations against `pending`, coalesced. A node may build its pending block for every
 * call (anvil executes its whole pool each time), so under load a call per order makes
 * the node's work grow with the pool. Here at most `maxInFlight` calls are at the node
 * (two by default); the orders that come meanwhile go together in the next call
 * (BatchSimulator, put at the relayer's address by a state override), each simulated
 * alone against the same pending state as its own call would be. An order alone is one
 * plain `eth_call`. A node that refuses the batch call (no state overrides)
 * gets one call per order from then on.
 *
 * Two at once, not one: on 0.25 s blocks a block's burst of 256 orders is four batches
 * of 64, 25–36 ms each at anvil on a loaded machine. One after another they often made
 * the burst reach the pool after the next block; two at once make that rarer (in
 * alternating runs on a loaded machine, p50 255–285 ms against 433–500 ms,
 * docs/benchmarks.md). What an order is checked against is the same either way: every tx
 * of the key in the pool when its call starts, and never the orders simulated beside it,
 * in its batch or in the other call.
 */
export function createPendingSimulator(options: PendingSimulatorOptions): PendingSimulator {
  const { client, address, broker, logger } = options
  const maxInFlight = options.maxInFlight ?? 2
  const maxBatch = options.maxBatch ?? 64
  const maxBatchGas = options.maxBatchGas ?? 20_000_000n
  const queue: Waiting[] = []
  const counts = { single: 0, batched: 0, batches: 0 }
  let inFlight = 0
  let batching = true

  async function single(data: Hex, gas: bigint, fees: Fees): Promise<unknown> {
    counts.single++
    try {
      await client.call({ account: address, to: broker, data, gas, ...fees, blockTag: 'pending' })
      return undefined
    } catch (error) {
      return error ?? new Error('eth_call failed')
    }
  }

  /** Takes the next batch off the queue: same fees, within the count and gas caps. */
  function takeBatch(): Array<Waiting & { item: BatchItem }> {
    const taken: Array<Waiting & { item: BatchItem }> = []
    const fees = queue[0]!.fees
    let gasSoFar = batchGas([])
    for (let index = 0; index < queue.length && taken.length < maxBatch; ) {
      const waiting = queue[index]!
      const gas = executionGas(waiting.data, waiting.gas)
      const sameFees = waiting.fees.maxFeePerGas === fees.maxFeePerGas && waiting.fees.maxPriorityFeePerGas === fees.maxPriorityFeePerGas
      // A limit under the calldata cost cannot be batched: its own call gives the node's answer.
      if (gas === undefined || !sameFees) {
        index++
        continue
      }
      const item = { data: waiting.data, executionGas: gas }
      if (taken.length > 0 && gasSoFar + itemGas(item) > maxBatchGas) break
      gasSoFar += itemGas(item)
      queue.splice(index, 1)
      taken.push({ ...waiting, item })
    }
    return taken
  }

  async function runBatch(batch: Array<Waiting & { item: BatchItem }>): Promise<void> {
    counts.batches++
    counts.batched += batch.length
    let results: BatchItemResult[]
    try {
      results = await callBatch(client, address, broker, batch.map((each) => each.item), batch[0]!.fees)
    } catch (error) {
      if (isTransportError(error)) {
        for (const each of batch) each.resolve(error)
        return
      }
      // Said once: with two calls at the node, a second batch may be refused too.
      if (!cannotPay(error) && batching) {
        batching = false
        logger.warn(`batched simulation is off: the node refused an eth_call with a state override (${nodeSays(error)}); each order is simulated in its own eth_call from now on`)
      }
      // The key may pay for each order's gas but not for the batch's: each alone says which.
      await Promise.all(batch.map(async (each) => each.resolve(await single(each.data, each.gas, each.fees))))
      return
    }
    await Promise.all(
      batch.map(async (each, index) => {
        const result = results[index]
        if (result === undefined) each.resolve(await single(each.data, each.gas, each.fees))
        else each.resolve(result.ok ? undefined : new BatchedRevertError(result.data))
      }),
    )
  }

  function pump(): void {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = batching && queue.length > 1 ? takeBatch() : []
      inFlight++
      let work: Promise<void>
      if (batch.length > 1) {
        work = runBatch(batch)
      } else {
        // One order (or one that cannot be batched): its own plain call.
        if (batch.length === 1) queue.unshift(batch[0]!)
        const next = queue.shift()!
        work = single(next.data, next.gas, next.fees).then(next.resolve)
      }
      void work.finally(() => {
        inFlight--
        pump()
      })
    }
  }

  return {
    call(data, gas, fees) {
      return new Promise((resolve) => {
        queue.push({ data, gas, fees, resolve })
        pump()
      })
    },
    callAlone: single,
    counts,
  }
}

