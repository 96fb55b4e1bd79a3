/** The chain changed under a range being indexed (a reorg in progress): retry after a reorg check. */
export class ChainMovedError extends Error {
  override name = 'ChainMovedError'
}
