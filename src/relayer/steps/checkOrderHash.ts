import type { Hex } from 'viem'
import { hashOrder, type RelayRequest } from '../../wire/index.ts'
import { RelayError } from '../errors.ts'

/**
 * Step 2: recompute the orderHash from the order itself. A client-supplied hash is
 * only compared, never trusted.
 * @throws RelayError ORDERHASH_MISMATCH
 */
export function checkOrderHash(request: RelayRequest): Hex {
  const orderHash = hashOrder(request.order)
  if (request.orderHash !== undefined && request.orderHash.toLowerCase() !== orderHash) {
    throw new RelayError('ORDERHASH_MISMATCH', `orderHash does not match the order (recomputed ${orderHash}); re-encode the order`)
  }
  return orderHash
}
