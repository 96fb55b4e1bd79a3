import type { Hash, PublicClient } from 'viem'

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

export type ForkPoint = {
  /** The highest stored block still on the chain (everything at or below it stands), or undefined: none is. */
  block: bigint | undefined
  hash: Hash | undefined
  /** How many stored hashes were compared with the chain. */
  probes: number
}

/**
 * Finds where the indexed chain and the node's chain part, over every block hash
 * the store knows (the recent window, the blocks events came from, range ends),
 * at any depth. The stored hashes were read from one chain, so "still on the
 * chain" holds up to the fork and not above it: a bisection finds the highest one
 * still on the chain in log2(n) header reads. Nothing at or below it changed (a
 * block's hash commits to its ancestors); re-fetching from the next block repairs
 * everything above it, whatever the blocks between carried.
 *
 * @example
 * const fork = await findForkPoint(client, await store.knownHashes(checkpoint.block))
 * if (fork.block === undefined) resyncFromDeployedAt()
 */
export async function findForkPoint(client: PublicClient, known: readonly (readonly [bigint, Hash])[]): Promise<ForkPoint> {
  let probes = 0
  const onChain = async (index: number) => {
    probes++
    const [block, hash] = known[index]!
    return (await canonicalHash(client, block)) === hash
  }
  // Invariant: known[high] is off the chain (or past its end); known[low] (when low >= 0) is on it.
  let low = -1
  let high = known.length
  while (high - low > 1) {
    const middle = (low + high) >> 1
    if (await onChain(middle)) low = middle
    else high = middle
  }
  const found = low >= 0 ? known[low] : undefined
  return { block: found?.[0], hash: found?.[1], probes }
}
