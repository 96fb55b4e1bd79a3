import type { Hex } from 'viem'
import { hashOrder, type RelayRequest } from '../../wire/index.ts'
import { RelayError } from '../errors.ts'

/**
 * Step 2: recompute the orderHash from the order itself. A client-supplied hash is
 * only compared, never trusted.
 * @returns the orderHash, or a RelayError ORDERHASH_MISMATCH (returned, not thrown).
 */
export function checkOrderHash(request: RelayRequest): Hex | RelayError {
  const orderHash = hashOrder(request.order)
  if (request.orderHash !== undefined && request.orderHash.toLowerCase() !== orderHash) {
    return new RelayError('ORDERHASH_MISMATCH', `orderHash does not match the order (recomputed ${orderHash}); re-encode the order`)
  }
  return orderHash
}
