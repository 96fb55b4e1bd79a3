import { OrderRelayError } from '../../errors/index.ts'

/** The chain changed under a range being indexed (a reorg in progress): retry after a reorg check. */
export class ChainMovedError extends OrderRelayError<'CHAIN_MOVED'> {
  override name = 'ChainMovedError'
  constructor(message: string) {
    super('CHAIN_MOVED', message)
  }
}
