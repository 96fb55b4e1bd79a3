import type { Address, Hex, PublicClient } from 'viem'

/**
 * Gas limits per adapter: one `eth_estimateGas` the first time an adapter is seen
 * (and again after `ttlMs`), padded, then reused, so an order normally costs no
 * estimate. Adapters differ a lot in cost; orders to one adapter differ little.
 */
export function createGasLimitCache(client: PublicClient, options: { ttlMs: number; pad: (estimate: bigint) => bigint }) {
  const cache = new Map<string, { gas: bigint; at: number }>()
  return {
    async get(key: Address, request: { account: Address; to: Address; data: Hex }): Promise<bigint> {
      const id = key.toLowerCase()
      const hit = cache.get(id)
      if (hit && Date.now() - hit.at < options.ttlMs) return hit.gas
      const estimate = await client.estimateGas(request)
      const gas = options.pad(estimate)
      // Keep the larger of the old and new value: params of some orders cost more.
      cache.set(id, { gas: hit && hit.gas > gas ? hit.gas : gas, at: Date.now() })
      return cache.get(id)!.gas
    },
    /** One order's own limit, estimated and padded, leaving the cache alone. */
    async estimate(request: { account: Address; to: Address; data: Hex }): Promise<bigint> {
      return options.pad(await client.estimateGas(request))
    },
    /** Raise the cached limit after a transaction ran out of gas. */
    bump(key: Address, gasUsed: bigint) {
      const id = key.toLowerCase()
      cache.set(id, { gas: options.pad(gasUsed * 2n), at: Date.now() })
    },
  }
}
