import type { Hex } from 'viem'

/** A block as the watcher reads it: number, hash, parent. */
export type BlockLink = { number: bigint; hash: Hex; parentHash?: Hex | undefined }

/**
 * The hashes of the recent blocks the receipt watcher has read, by number, as the chain it
 * follows: a block whose parent is not the hash kept for the number below it, or a head
 * below the last one read, means a reorg (`breaks`). Kept for the last `keep` blocks.
 */
export function createCanonicalBlocks(keep: number) {
  const hashes = new Map<bigint, Hex>()
  let top: bigint | undefined

  return {
    /** The hash kept for `number`, if read. */
    hash(number: bigint): Hex | undefined {
      return hashes.get(number)
    },
    /** Whether `block` contradicts what is kept: its hash, or its parent's, differs from the one kept at that number. */
    breaks(block: BlockLink): boolean {
      const kept = hashes.get(block.number)
      if (kept !== undefined && kept.toLowerCase() !== block.hash.toLowerCase()) return true
      const parent = hashes.get(block.number - 1n)
      return parent !== undefined && block.parentHash !== undefined && parent.toLowerCase() !== block.parentHash.toLowerCase()
    },
    /** Keeps `block` as canonical at its number (after `breaks` said it fits, or after a reorg was dealt with). */
    add(block: BlockLink) {
      hashes.set(block.number, block.hash.toLowerCase() as Hex)
      if (top === undefined || block.number > top) top = block.number
      const oldest = top - BigInt(keep)
      for (const number of hashes.keys()) if (number <= oldest) hashes.delete(number)
    },
    /** Forgets every block above `number` (they were reorged out). */
    forgetAbove(number: bigint) {
      for (const each of [...hashes.keys()]) if (each > number) hashes.delete(each)
      top = number
    },
    /** The numbers kept, highest first (where a fork point is looked for). */
    numbersDescending(): bigint[] {
      return [...hashes.keys()].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))
    },
  }
}

export type CanonicalBlocks = ReturnType<typeof createCanonicalBlocks>
