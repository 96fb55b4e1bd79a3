// The least relayer's simulation at `pending` (LEAST_SIMULATE=pending): the check a
// relayer needs where its own txs wait in the pool between blocks (an order that
// competes with one of them is refused, not sent to revert), done as the relayer does it
// (simulation/pendingSimulator.ts) but over the bench's lean JSON-RPC client: at most two
// calls at the node at once, the orders that come meanwhile in one `eth_call` of up to 64
// (BatchSimulator put at the key's address by a state override, 20 M gas at most). Used
// by the interval row's information side, where the relayer's p50 misses its target in
// the state this check brings on anvil (docs/benchmarks.md).
import type { Address, Hex } from 'viem'
import { batchSimulatorRuntimeBytecode } from '../../../src/chain/index.ts'
import { batchGas, type Fees, itemGas } from '../../../src/relayer/simulation/batchCall.ts'
import { decodeSimulateResults, encodeSimulateCall, type SimulateCall } from '../../../src/relayer/simulation/batchAbi.ts'
import { executionGas } from '../../../src/chain/intrinsicGas.ts'
import { rpcBatchAnswers } from '../lib/rpc.ts'

type Waiting = { data: Hex; gas: bigint; resolve: (reverted: string | undefined) => void }

const hex = (value: bigint) => `0x${value.toString(16)}`
const maxInFlight = 2
const maxBatch = 64
const maxBatchGas = 20_000_000n

/**
 * `simulate({ data, gas })` resolves undefined when the order passes at `pending`, else
 * the reason (the node's message, or the batch's revert data).
 */
export function createLeastPendingSimulator(options: { rpcUrl: string; from: Address; broker: Address; fees: () => Fees }) {
  const { rpcUrl, from, broker } = options
  const queue: Waiting[] = []
  let inFlight = 0

  const callObject = (to: Address, data: Hex, gas: bigint, fees: Fees) => ({ from, to, data, gas: hex(gas), maxFeePerGas: hex(fees.maxFeePerGas), maxPriorityFeePerGas: hex(fees.maxPriorityFeePerGas) })

  async function single({ data, gas, resolve }: Waiting): Promise<void> {
    const answer = await ask(callObject(broker, data, gas, options.fees()), undefined)
    resolve(answer.error ? answer.error : undefined)
  }

  /** One eth_call at pending; a failed fetch comes back as its message, like a node's error. */
  async function ask(call: Record<string, string>, override: Record<string, { code: Hex }> | undefined): Promise<{ result?: unknown; error?: string }> {
    try {
      const [answer] = await rpcBatchAnswers(rpcUrl, [{ method: 'eth_call', params: override ? [call, 'pending', override] : [call, 'pending'] }])
      return answer?.error ? { error: answer.error.message } : answer ? { result: answer.result } : { error: 'no answer' }
    } catch (error) {
      return { error: (error as Error).message }
    }
  }

  async function batch(taken: Array<Waiting & { item: SimulateCall }>): Promise<void> {
    const items = taken.map((each) => each.item)
    const call = callObject(from, encodeSimulateCall(broker, items), batchGas(items), options.fees())
    const answer = await ask(call, { [from]: { code: batchSimulatorRuntimeBytecode } })
    if (answer.error || typeof answer.result !== 'string') {
      for (const each of taken) each.resolve(answer.error ?? 'the batch call returned no data')
      return
    }
    let results: ReturnType<typeof decodeSimulateResults>
    try {
      results = decodeSimulateResults(answer.result as Hex)
    } catch (error) {
      for (const each of taken) each.resolve(`the batch call's answer did not decode: ${(error as Error).message}`)
      return
    }
    taken.forEach((each, index) => {
      const result = results[index]
      each.resolve(result?.ok ? undefined : result ? `reverted (${result.data})` : 'no result')
    })
  }

  function take(): Array<Waiting & { item: SimulateCall }> {
    const taken: Array<Waiting & { item: SimulateCall }> = []
    let gasSoFar = batchGas([])
    while (queue.length > 0 && taken.length < maxBatch) {
      const waiting = queue[0]!
      const item = { data: waiting.data, executionGas: executionGas(waiting.data, waiting.gas) ?? 0n }
      if (taken.length > 0 && gasSoFar + itemGas(item) > maxBatchGas) break
      gasSoFar += itemGas(item)
      queue.shift()
      taken.push({ ...waiting, item })
    }
    return taken
  }

  function pump(): void {
    while (inFlight < maxInFlight && queue.length > 0) {
      inFlight++
      const work = queue.length === 1 ? single(queue.shift()!) : batch(take())
      void work.finally(() => {
        inFlight--
        pump()
      })
    }
  }

  return {
    simulate: ({ data, gas }: { data: Hex; gas: bigint }): Promise<string | undefined> =>
      new Promise((resolve) => {
        queue.push({ data, gas, resolve })
        pump()
      }),
  }
}
