import type { Address, Hex, PublicClient } from 'viem'

/**
 * Gas limits per adapter: one `eth_estimateGas` the first time an adapter is seen
 * (and again after `ttlMs`), padded, then reused, so an order normally costs no
 * estimate. Adapters differ a lot in cost; orders to one adapter differ little.
 */
export function createGasLimitCache(client: PublicClient, options: { ttlMs: number; pad: (estimate: bigint) => bigint }) {
  const cache = new Map<string, { gas: bigint; at: number }>()
  // One estimate per adapter at a time: orders arriving together share it instead of
  // each sending its own (32 at once cost anvil a second of estimates in the benchmark).
  const filling = new Map<string, Promise<bigint>>()

  async function fill(id: string, request: { account: Address; to: Address; data: Hex }): Promise<bigint> {
    const estimate = await client.estimateGas(request)
    const gas = options.pad(estimate)
    const hit = cache.get(id)
    // Keep the larger of the old and new value: params of some orders cost more.
    cache.set(id, { gas: hit && hit.gas > gas ? hit.gas : gas, at: Date.now() })
    return cache.get(id)!.gas
  }

  return {
    async get(key: Address, request: { account: Address; to: Address; data: Hex }): Promise<bigint> {
      const id = key.toLowerCase()
      const hit = cache.get(id)
      if (hit && Date.now() - hit.at < options.ttlMs) return hit.gas
      const running = filling.get(id)
      if (running) {
        // That estimate was for another order: if it failed (its own revert), estimate this one.
        try {
          return await running
        } catch {
          return fill(id, request)
        }
      }
      const mine = fill(id, request)
      filling.set(id, mine)
      try {
        return await mine
      } finally {
        filling.delete(id)
      }
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
