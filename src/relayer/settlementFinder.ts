import { type AbiEvent, type Address, type Hex, parseAbiItem, type PublicClient } from 'viem'
import { brokeredEvent } from '../chain/index.ts'

/** The tx that settled an order, its block, and the relayer it names (the address that sent it). */
export type Settlement = { txHash: Hex; blockNumber: bigint; relayer?: Hex }
export type SettlementFinder = ReturnType<typeof createSettlementFinder>

/** orderHashes remembered, found or not. */
const remembered = 10_000

/** EIP-3009's cancellation event (USDC's and the mock token's): the nonce is the orderHash. */
const authorizationCanceledEvent = parseAbiItem('event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)')

/**
 * Finds the first log of `event` naming an orderHash (an indexed argument), from
 * `deployedAt`. A miss remembers the block it searched up to, so asking again searches
 * only newer blocks (nothing when no block came), and only one search runs at a time:
 * replays cannot make the relayer scan the chain's logs at will. Both memories are
 * bounded. `address` undefined: any contract (a cancellation is the pay token's,
 * whichever the order named; the orderHash is the order's alone).
 */
function createOrderLogFinder(options: { client: PublicClient; address: Address | undefined; event: AbiEvent; argument: string; deployedAt: bigint }) {
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
    const logs = await options.client.getLogs({
      ...(options.address ? { address: options.address } : {}),
      event: options.event,
      args: { [options.argument]: orderHash },
      fromBlock,
      toBlock: head,
    } as Parameters<PublicClient['getLogs']>[0])
    const log = logs[0]
    if (log?.transactionHash && log.blockNumber !== null) {
      // `Brokered` names the relayer that sent it; a cancellation names none.
      const relayer = (log as { args?: { relayer?: Hex } }).args?.relayer
      const settlement: Settlement = { txHash: log.transactionHash, blockNumber: log.blockNumber, ...(relayer ? { relayer } : {}) }
      bounded(found, orderHash, settlement)
      searchedTo.delete(orderHash)
      return settlement
    }
    bounded(searchedTo, orderHash, head)
    return undefined
  }

  return (orderHash: Hex): Promise<Settlement | undefined> => {
    const key = orderHash.toLowerCase() as Hex
    const result = tail.then(() => search(key))
    tail = result.catch(() => undefined)
    return result
  }
}

/**
 * Where an orderHash went on chain, by logs: `find` the tx that settled it (the
 * Broker's `Brokered`, orderHash indexed), `findCancellation` the tx in which the
 * consumer cancelled its authorization (the token's `AuthorizationCanceled`, whose
 * nonce is the orderHash). Misses are cached per orderHash (see createOrderLogFinder).
 * @throws the RPC's error when the logs cannot be read
 */
export function createSettlementFinder(options: { client: PublicClient; broker: Hex; deployedAt: bigint }) {
  const find = createOrderLogFinder({ client: options.client, address: options.broker, event: brokeredEvent as AbiEvent, argument: 'orderHash', deployedAt: options.deployedAt })
  const findCancellation = createOrderLogFinder({ client: options.client, address: undefined, event: authorizationCanceledEvent, argument: 'nonce', deployedAt: options.deployedAt })
  return { find, findCancellation }
}
