import { type Address, decodeFunctionResult, encodeFunctionData, type Hex, type PublicClient, parseAbi } from 'viem'
import type { Logger } from '../../shared/index.ts'

/** Arbitrum's NodeInterface: a virtual contract nodes of Arbitrum chains answer through eth_call. */
export const nodeInterfaceAddress: Address = '0x00000000000000000000000000000000000000C8'

const nodeInterfaceAbi = parseAbi(['function gasEstimateL1Component(address to, bool contractCreation, bytes data) payable returns (uint64 gasEstimateForL1, uint256 baseFee, uint256 l1BaseFeeEstimate)'])

/** Chains built on Arbitrum (One, Nova, Sepolia, Robinhood Chain Testnet): their txs pay an L1 data component. */
const arbitrumChains = new Set([42161, 42170, 421614, 46630])

/** Whether `chainId` is an Arbitrum-family chain, whose nodes answer for NodeInterface. */
export const isArbitrumChain = (chainId: number) => arbitrumChains.has(chainId)

/**
 * The L1 data component of an order's tx on Arbitrum-family chains, in L2 gas units, read
 * from NodeInterface's `gasEstimateL1Component` (the gas Arbitrum adds to the tx's own to pay
 * for posting its calldata to L1). `detect` asks once whether the node answers for
 * NodeInterface: an answer turns it on; an empty answer (no such contract, as on a local
 * anvil) turns it off; a failed call leaves it on for Arbitrum's chain ids, so a node that
 * cannot answer makes orders fail rather than be priced without their L1 cost.
 */
export function createL1Component(options: { client: PublicClient; chainId: number; logger: Logger }) {
  const { client, logger } = options
  let enabled = false

  async function ask(to: Address, data: Hex): Promise<bigint | undefined> {
    const { data: returned } = await client.call({ to: nodeInterfaceAddress, data: encodeFunctionData({ abi: nodeInterfaceAbi, functionName: 'gasEstimateL1Component', args: [to, false, data] }) })
    if (!returned || returned === '0x') return undefined
    const [gas] = decodeFunctionResult({ abi: nodeInterfaceAbi, functionName: 'gasEstimateL1Component', data: returned })
    return gas
  }

  return {
    /** Whether orders are priced with an L1 component. */
    get enabled() {
      return enabled
    },
    /** Asks the node once whether it answers for NodeInterface (see above); logs what it found. */
    async detect(to: Address): Promise<void> {
      try {
        enabled = (await ask(to, '0x')) !== undefined
        if (enabled) logger.info(`L1 data component: read from NodeInterface (${nodeInterfaceAddress}) for every order and priced with its gas`)
      } catch (error) {
        enabled = arbitrumChains.has(options.chainId)
        if (enabled) logger.warn(`NodeInterface did not answer (${(error as Error).name}); orders are refused (UPSTREAM_RPC) until it answers, rather than priced without their L1 data cost`)
      }
    },
    /** The L1 data gas of a tx to `to` carrying `data` (0 when off). @throws the RPC's error */
    async gasFor(to: Address, data: Hex): Promise<bigint> {
      if (!enabled) return 0n
      return (await ask(to, data)) ?? 0n
    },
  }
}

export type L1Component = ReturnType<typeof createL1Component>
