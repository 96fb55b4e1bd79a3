import { type Address, type PublicClient, size } from 'viem'
import { batchSimulatorRuntimeBytecode } from '../../chain/index.ts'
import { decodeSimulateResults, encodeSimulateCall, type SimulateCall, type SimulateResult } from './batchAbi.ts'

export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }

/** One order's call in a batch: its calldata and the execution gas its transaction would have. */
export type BatchItem = SimulateCall

/** What one call did: passed, or reverted with this data ('0x' when empty or out of gas); undefined when it could not run. */
export type BatchItemResult = SimulateResult

// Per item beyond its own gas: the 1/64 a CALL keeps back, `attempt`'s own work and the
// copies of its calldata and results; per batch: the loop and the outer call's calldata.
const perItemOverhead = 40_000n
const perBatchOverhead = 100_000n

/** The gas one item adds to the outer call. */
export const itemGas = (item: BatchItem): bigint => item.executionGas + item.executionGas / 63n + perItemOverhead + 16n * BigInt(size(item.data))

/** The gas the outer call needs for `items`. */
export function batchGas(items: readonly BatchItem[]): bigint {
  let total = perBatchOverhead
  for (const item of items) total += itemGas(item)
  return total
}

/**
 * One `eth_call` at `pending` from `address` to `address`, whose code is overridden with
 * BatchSimulator for the call: every item runs against `target` with the relayer as its
 * sender, each in isolation. Throws what the node answered when the call itself fails.
 * (`blockTag` is for measuring what `pending` costs; the relayer always simulates there.)
 */
export async function callBatch(client: PublicClient, address: Address, target: Address, items: readonly BatchItem[], fees: Fees, blockTag: 'pending' | 'latest' = 'pending'): Promise<BatchItemResult[]> {
  const data = encodeSimulateCall(target, items)
  const { data: returned } = await client.call({
    account: address,
    to: address,
    data,
    gas: batchGas(items),
    ...fees,
    blockTag,
    stateOverride: [{ address, code: batchSimulatorRuntimeBytecode }],
  })
  if (returned === undefined) throw new Error('the batch simulation returned no data')
  const results = decodeSimulateResults(returned)
  if (results.length !== items.length) throw new Error(`the batch simulation returned ${results.length} results for ${items.length} calls`)
  return results
}
