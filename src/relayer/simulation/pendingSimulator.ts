import type { Address, Hex, PublicClient } from 'viem'
import { OrderRelayError } from '../../errors/index.ts'
import type { Logger } from '../../shared/index.ts'
import { isTransportError, nodeSays } from '../rpcErrors.ts'
import { type BatchItem, type BatchItemResult, batchGas, callBatch, type Fees, itemGas } from './batchCall.ts'
import { cannotPay } from '../rpcErrors.ts'
import { executionGas } from '../../chain/index.ts'

/**
 * A call that reverted inside a batch: carries its revert data as a node's error would.
 * Built without a stack trace: it is the chain's answer, not a fault, and a burst of
 * sold-out orders makes one per order.
 */
export class BatchedRevertError extends OrderRelayError<'BATCHED_REVERT'> {
  override name = 'BatchedRevertError'
  constructor(readonly data: Hex) {
    super('BATCHED_REVERT', 'execution reverted', { stackTrace: false })
  }
}

/**
 * What one simulation said: the call passed, with the gas its execution took (undefined when the
 * node was asked with a plain `eth_call`, which does not tell), or it failed with the node's
 * error (a BatchedRevertError when it ran in a batch).
 */
export type Simulation = { passed: true; gasUsed: bigint | undefined } | { passed: false; error: unknown }

export type PendingSimulator = {
  /** Runs the broker call `data` with `gas` and `fees` from the relayer's address against the `pending` block. */
  call(data: Hex, gas: bigint, fees: Fees): Promise<Simulation>
  /** The same, never in a batch with other orders (an order's second try at its own gas limit). */
  callAlone(data: Hex, gas: bigint, fees: Fees): Promise<Simulation>
  /**
   * The same against the `latest` block, alone: a pooled tx's order checked again before it
   * is sent again (the `pending` block would hold the tx itself).
   */
  callLatest(data: Hex, gas: bigint, fees: Fees): Promise<Simulation>
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

type Waiting = { data: Hex; gas: bigint; fees: Fees; resolve: (result: Simulation) => void }

/**
 * Simulations against `pending`, coalesced. A node may build its pending block for every
 * call (anvil executes its whole pool each time), so under load a call per order makes
 * the node's work grow with the pool. Here at most `maxInFlight` calls are at the node
 * (two by default); the orders that come meanwhile go together in the next call
 * (BatchSimulator, put at the relayer's address by a state override), each simulated
 * alone against the same pending state as its own call would be. An order alone is a batch
 * of one, so that every order passing simulation says the gas its execution took (what
 * the relayer checks the fee against, steps/checkPaysForItself.ts). A node that
 * refuses the batch call (no state overrides) gets one plain `eth_call` per order from
 * then on, which tells no gas: such an order is priced at its gas limit.
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

  /** A plain `eth_call`: passes or fails, with no gas figure. */
  async function plain(data: Hex, gas: bigint, fees: Fees, blockTag: 'pending' | 'latest' = 'pending'): Promise<Simulation> {
    try {
      await client.call({ account: address, to: broker, data, gas, ...fees, blockTag })
      return { passed: true, gasUsed: undefined }
    } catch (error) {
      return { passed: false, error: error ?? new Error('eth_call failed') }
    }
  }

  /** Said once: the node takes no state overrides, every order gets a plain call from now on. */
  function stopBatching(error: unknown) {
    if (!batching) return
    batching = false
    logger.warn(`batched simulation is off: the node refused an eth_call with a state override (${nodeSays(error)}); each order is simulated in its own eth_call from now on, and priced at its gas limit`)
  }

  /** One order on its own: a batch of one (its gas used comes back), else a plain call. */
  async function single(data: Hex, gas: bigint, fees: Fees, blockTag: 'pending' | 'latest' = 'pending'): Promise<Simulation> {
    counts.single++
    const execution = executionGas(data, gas)
    if (!batching || execution === undefined) return plain(data, gas, fees, blockTag)
    try {
      const [result] = await callBatch(client, address, broker, [{ data, executionGas: execution }], fees, blockTag)
      if (result) return result.ok ? { passed: true, gasUsed: result.gasUsed } : { passed: false, error: new BatchedRevertError(result.data) }
    } catch (error) {
      if (isTransportError(error)) return { passed: false, error }
      // A key that can pay for its tx but not for the call around it: the plain call says which.
      if (!cannotPay(error)) stopBatching(error)
    }
    return plain(data, gas, fees, blockTag)
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
        for (const each of batch) each.resolve({ passed: false, error })
        return
      }
      // Said once: with two calls at the node, a second batch may be refused too.
      if (!cannotPay(error)) stopBatching(error)
      // The key may pay for each order's gas but not for the batch's: each alone says which.
      await Promise.all(batch.map(async (each) => each.resolve(await single(each.data, each.gas, each.fees))))
      return
    }
    await Promise.all(
      batch.map(async (each, index) => {
        const result = results[index]
        if (result === undefined) each.resolve(await single(each.data, each.gas, each.fees))
        else each.resolve(result.ok ? { passed: true, gasUsed: result.gasUsed } : { passed: false, error: new BatchedRevertError(result.data) })
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
    callAlone: (data, gas, fees) => single(data, gas, fees),
    callLatest: (data, gas, fees) => single(data, gas, fees, 'latest'),
    counts,
  }
}

