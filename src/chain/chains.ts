import { type Chain, defineChain } from 'viem'
import { arbitrumSepolia, robinhoodTestnet } from 'viem/chains'

/** The chains a relayer serves out of the box (SPEC.md 2.4). */
export const knownChains = {
  [arbitrumSepolia.id]: arbitrumSepolia,
  [robinhoodTestnet.id]: robinhoodTestnet,
} as const satisfies Record<number, Chain>

export const supportedChainIds = [arbitrumSepolia.id, robinhoodTestnet.id] as const

/**
 * The viem chain for an id: the known entry (with `rpcUrl` overriding its default
 * RPC), or, for any other id (a local devnet), a minimal definition around `rpcUrl`.
 */
export function chainFor(chainId: number, rpcUrl?: string): Chain {
  const known = (knownChains as Record<number, Chain>)[chainId]
  if (known) {
    if (!rpcUrl) return known
    return { ...known, rpcUrls: { default: { http: [rpcUrl] } } }
  }
  if (!rpcUrl) throw new Error(`chain ${chainId} has no built-in entry: give an RPC URL`)
  return defineChain({
    id: chainId,
    name: `chain ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
}

/** The default RPC URL of a known chain, or undefined. */
export function defaultRpcUrl(chainId: number): string | undefined {
  return (knownChains as Record<number, Chain>)[chainId]?.rpcUrls.default.http[0]
}

/**
 * Blocks deep a mined tx's block must be before the relayer treats it as final
 * (RELAYER_CONFIRMATIONS' default): 20 on the Arbitrum chains and Robinhood Chain
 * (L2 blocks come every quarter second, and a sequencer reorg is rare and shallow),
 * 1 on a local devnet (31337, 1337: anvil and hardhat do not reorg unless told to),
 * 12 elsewhere.
 */
export function defaultConfirmations(chainId: number): number {
  if (chainId === 31337 || chainId === 1337) return 1
  if (chainId === 42161 || chainId === 42170 || chainId === 421614 || chainId === 46630) return 20
  return 12
}
