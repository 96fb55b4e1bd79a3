/** How many of the latest mined txs the typical wait is taken over. */
const waitsKept = 32

/**
 * How the chain has been making blocks for this key, as the receipt watcher saw it:
 * when its head last moved, and how long the key's txs usually waited between being
 * sent and being mined (the median of the latest 32: milliseconds on a devnet's
 * automine, about a block on an L2, several seconds on L1). The nonce keeper reads it
 * to tell a node that has stopped mining from one that is merely slow.
 */
export function createBlockPace(now: () => number = Date.now) {
  let movedAt: number | undefined
  const waits: number[] = []
  let nextWait = 0

  return {
    /** The watcher found one or more new blocks. */
    headMoved(): void {
      movedAt = now()
    },
    /** One of the key's txs, signed and sent at `sentAt`, was found mined. */
    mined(sentAt: number): void {
      waits[nextWait] = Math.max(0, now() - sentAt)
      nextWait = (nextWait + 1) % waitsKept
    },
    /** When the watcher last found a new block (undefined: not since start). */
    movedAt(): number | undefined {
      return movedAt
    },
    /** The median wait of the latest mined txs (undefined before the first). */
    typicalWaitMs(): number | undefined {
      if (waits.length === 0) return undefined
      return [...waits].sort((a, b) => a - b)[Math.floor(waits.length / 2)]
    },
  }
}

export type BlockPace = ReturnType<typeof createBlockPace>
