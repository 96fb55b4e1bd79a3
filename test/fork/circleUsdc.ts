import type { Address } from 'viem'

/**
 * Circle's USDC by chain id, each address from a public page docs/fork-tests.md cites:
 * - 421614, Arbitrum Sepolia: Circle's "USDC Contract Addresses", testnet table
 *   (https://developers.circle.com/stablecoins/usdc-contract-addresses).
 * - 46630, Robinhood Chain Testnet: none. Circle's table does not list the chain, and
 *   Robinhood's own token list (https://docs.robinhood.com/chain/contracts/) names WETH
 *   and USDG, not Circle's USDC; its fork pays in the project's mock token.
 */
export const circleUsdc: Readonly<Record<number, Address>> = {
  421614: '0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d',
}
