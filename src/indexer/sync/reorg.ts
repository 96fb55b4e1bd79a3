import type { Hash, PublicClient } from 'viem'

/**
 * Hashes of the most recent indexed blocks (at most `limit`), the evidence a reorg
 * is checked against.
 */
export function createBlockHashes(limit: number) {
  const hashes = new Map<bigint, Hash>()
  let lowest: bigint | undefined

  return {
    get(block: bigint): Hash | undefined {
      return hashes.get(block)
    },
    set(block: bigint, hash: Hash) {
      hashes.set(block, hash)
      if (lowest === undefined || block < lowest) lowest = block
      // Keep the newest `limit` blocks only.
      while (hashes.size > limit && lowest !== undefined) {
        hashes.delete(lowest)
        lowest = nextLowest(hashes)
      }
    },
    /** Forgets every block above `block`. */
    dropAbove(block: bigint) {
      for (const key of [...hashes.keys()]) if (key > block) hashes.delete(key)
      lowest = nextLowest(hashes)
    },
    /** Stored block numbers, newest first. */
    newestFirst(): bigint[] {
      return [...hashes.keys()].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))
    },
    get size() {
      return hashes.size
    },
  }
}

export type BlockHashes = ReturnType<typeof createBlockHashes>

function nextLowest(hashes: Map<bigint, Hash>): bigint | undefined {
  let lowest: bigint | undefined
  for (const key of hashes.keys()) if (lowest === undefined || key < lowest) lowest = key
  return lowest
}

/** The chain's hash of `block` now, or undefined when the chain no longer reaches it. */
export async function canonicalHash(client: PublicClient, block: bigint): Promise<Hash | undefined> {
  try {
    const found = await client.getBlock({ blockNumber: block })
    return found.hash ?? undefined
  } catch (error) {
    if (error instanceof Error && error.name === 'BlockNotFoundError') return undefined
    throw error
  }
}

export type ReorgCheck =
  | { reorged: false }
  /** `forkPoint`: the highest kept block still on the chain; `deep` when none of the kept blocks is. */
  | { reorged: true; forkPoint: bigint; deep: boolean }

/**
 * Checks that the newest kept block is still the chain's; if not, finds the fork
 * point (the highest kept block still on the chain) by bisection — the kept hashes
 * form one verified parent chain, so "still on the chain" holds up to the fork and
 * not above it. A reorg deeper than the window rewinds below the oldest kept block.
 *
 * @example
 * const check = await checkReorg(client, hashes)
 * if (check.reorged) rewindTo(check.forkPoint)
 */
export async function checkReorg(client: PublicClient, hashes: BlockHashes): Promise<ReorgCheck> {
  const blocks = hashes.newestFirst().reverse()
  const tip = blocks[blocks.length - 1]
  if (tip === undefined) return { reorged: false }
  const onChain = async (block: bigint) => (await canonicalHash(client, block)) === hashes.get(block)
  if (await onChain(tip)) return { reorged: false }
  // Invariant: blocks[high] is off the chain; blocks[low] (when low >= 0) is on it.
  let low = -1
  let high = blocks.length - 1
  while (high - low > 1) {
    const middle = (low + high) >> 1
    if (await onChain(blocks[middle] as bigint)) low = middle
    else high = middle
  }
  if (low >= 0) return { reorged: true, forkPoint: blocks[low] as bigint, deep: false }
  return { reorged: true, forkPoint: (blocks[0] as bigint) - 1n, deep: true }
}
