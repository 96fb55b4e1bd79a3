import type { Address } from 'viem'

/**
 * Pay tokens a relayer accepts on a chain without configuration, each address named by a
 * public source (docs/economics.md cites them): the chain's Circle USDC, valued through
 * Chainlink's USDC / USD and ETH / USD feeds. A chain without a cited USDC and feeds has
 * none (46630: no Circle USDC and no Chainlink feed addresses published for it).
 */
export const builtinTokenPrices: Readonly<Record<number, ReadonlyArray<readonly [Address, string]>>> = {
  // Arbitrum Sepolia: USDC (developers.circle.com/stablecoins/usdc-contract-addresses),
  // USDC / USD and ETH / USD (docs.chain.link/data-feeds/price-feeds/addresses, Arbitrum Sepolia).
  421614: [['0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d', 'feed:0x0153002d20B96532C639313c2d54c3dA09109309/0xd30e2101a97dcbAeBCBC04F14C3f624E67A35165']],
}
