import type { Hex, PublicClient } from 'viem'
import { brokeredEvent } from '../../chain/index.ts'
import type { RelayerContext } from '../context.ts'

/** The tx that settled an order, its block, and the relayer it names (the address that sent it). */
export type Settlement = { txHash: Hex; blockNumber: bigint; relayer?: Hex }
export type SettlementFinder = ReturnType<typeof createSettlementFinder>

/** orderHashes remembered, found or not. */
const remembered = 10_000

/**
 * Finds the tx that settled an orderHash through the Broker's `Brokered` logs
 * (orderHash is indexed), from `deployedAt`. A miss remembers the block it searched
 * up to, so asking again searches only newer blocks (nothing when no block came),
 * and only one search runs at a time: replays cannot make the relayer scan the
 * chain's logs at will. Both memories are bounded.
 * @throws the RPC's error when the logs cannot be read
 */
export function createSettlementFinder(options: { client: PublicClient; broker: Hex; deployedAt: bigint }) {
  const found = new Map<Hex, Settlement>()
  const searchedTo = new Map<Hex, bigint>()
  let tail: Promise<unknown> = Promise.resolve()
  const bounded = <V>(map: Map<Hex, V>, key: Hex, value: V) => {
    map.delete(key)
    if (map.size >= remembered) map.delete(map.keys().next().value!)
    map.set(key, value)
  }

  async function search(orderHash: Hex): Promise<Settlement | undefined> {
    const hit = found.get(orderHash)
    if (hit) return hit
    const head = await options.client.getBlockNumber({ cacheTime: 0 })
    const before = searchedTo.get(orderHash)
    const fromBlock = before === undefined ? options.deployedAt : before + 1n
    if (fromBlock > head) return undefined
    const logs = await options.client.getLogs({ address: options.broker, event: brokeredEvent, args: { orderHash }, fromBlock, toBlock: head })
    const log = logs[0]
    if (log?.transactionHash && log.blockNumber !== null) {
      const settlement: Settlement = { txHash: log.transactionHash, blockNumber: log.blockNumber, ...(log.args.relayer ? { relayer: log.args.relayer } : {}) }
      bounded(found, orderHash, settlement)
      searchedTo.delete(orderHash)
      return settlement
    }
    bounded(searchedTo, orderHash, head)
    return undefined
  }

  return {
    find(orderHash: Hex): Promise<Settlement | undefined> {
      const key = orderHash.toLowerCase() as Hex
      const result = tail.then(() => search(key))
      tail = result.catch(() => undefined)
      return result
    },
  }
}

/**
 * The txHash that settled an orderHash: this relayer's journal, else the Broker's
 * logs. Best effort: a node that refuses the log query yields undefined, never an error.
 */
export async function findSettlement(context: RelayerContext, orderHash: Hex): Promise<Hex | undefined> {
  const slot = context.journal.byOrder(orderHash)
  if (slot?.status === 'settled') return slot.txHash
  try {
    return (await context.settlements.find(orderHash))?.txHash
  } catch {
    return undefined
  }
}
