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
