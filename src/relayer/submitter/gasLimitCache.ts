import type { Address, Hex, PublicClient } from 'viem'

/** What a cached limit is for: orders to one adapter paid in one token cost about the same. */
export type GasLimitKey = { adapter: Address; payToken: Address }

type Call = { account: Address; to: Address; data: Hex }

export type GasLimitCacheOptions = {
  /** How long a cached limit (and the block gas limit read) is reused before it is estimated again. */
  ttlMs: number
  /** Head room added to an estimate. */
  pad: (estimate: bigint) => bigint
  /** Most (adapter, payToken) pairs remembered; the least recently used is forgotten first (default 1024). */
  maxEntries?: number
}

/**
 * Gas limits per (adapter, payToken): one `eth_estimateGas` the first time a pair is
 * seen (and again after `ttlMs`), padded, then reused, so an order normally costs no
 * estimate. Adapters differ a lot in cost, and so do tokens (a token with transfer
 * hooks can cost several times another): keyed by adapter alone, one order paid in a
 * gas-heavy token set every later order's limit. Each estimate replaces the last
 * (no maximum kept), no limit exceeds the block gas limit, and the number of pairs
 * is bounded since the pay token is the client's choice.
 */
export function createGasLimitCache(client: PublicClient, options: GasLimitCacheOptions) {
  const maxEntries = options.maxEntries ?? 1024
  const cache = new Map<string, { gas: bigint; at: number }>()
  // One estimate per pair at a time: orders arriving together share it instead of
  // each sending its own (32 at once cost anvil a second of estimates in the benchmark).
  const filling = new Map<string, Promise<bigint>>()
  let blockLimit: { gas: bigint; at: number } | undefined

  /** The latest block's gas limit, read at most once per `ttlMs`. */
  async function blockGasLimit(): Promise<bigint> {
    if (blockLimit && Date.now() - blockLimit.at < options.ttlMs) return blockLimit.gas
    const block = await client.getBlock({ blockTag: 'latest' })
    blockLimit = { gas: block.gasLimit, at: Date.now() }
    return block.gasLimit
  }

  /** The padded estimate, never above the block gas limit (a tx over it is never mined). */
  async function padded(request: Call): Promise<bigint> {
    const [estimate, ceiling] = await Promise.all([client.estimateGas({ ...request, blockTag: 'pending' }), blockGasLimit()])
    const gas = options.pad(estimate)
    return gas > ceiling ? ceiling : gas
  }

  function store(id: string, gas: bigint) {
    cache.delete(id)
    cache.set(id, { gas, at: Date.now() })
    while (cache.size > maxEntries) {
      const oldest = cache.keys().next().value
      if (oldest === undefined) break
      cache.delete(oldest)
    }
  }

  async function fill(id: string, request: Call): Promise<bigint> {
    const gas = await padded(request)
    store(id, gas)
    return gas
  }

  return {
    async get(key: GasLimitKey, request: Call): Promise<bigint> {
      const id = idOf(key)
      const hit = cache.get(id)
      if (hit && Date.now() - hit.at < options.ttlMs) {
        // Most recently used goes last, so the bound forgets the pairs nobody uses.
        cache.delete(id)
        cache.set(id, hit)
        return hit.gas
      }
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
    /** One order's own limit, estimated and padded (at most the block gas limit), leaving the cache alone. */
    estimate(request: Call): Promise<bigint> {
      return padded(request)
    },
    /**
     * A transaction to `adapter` ran out of gas: its cached limits (every pay token) are
     * dropped, so the next order to it gets a fresh estimate. Nothing is doubled or kept
     * as a floor: one odd order must not raise every later order's limit.
     */
    bump(adapter: Address, _gasUsed?: bigint) {
      const prefix = `${adapter.toLowerCase()}/`
      for (const id of [...cache.keys()]) if (id.startsWith(prefix)) cache.delete(id)
    },
    /** Pairs remembered now (bounded by `maxEntries`). */
    get size() {
      return cache.size
    },
  }
}

const idOf = (key: GasLimitKey) => `${key.adapter.toLowerCase()}/${key.payToken.toLowerCase()}`
