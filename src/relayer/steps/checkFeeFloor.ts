import type { RelayRequest } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'

/**
 * Step 3: the relayer's only lever. It may decline an order below its floor; it can
 * never raise the fee (that would change the signed order).
 * @returns a RelayError FEE_BELOW_FLOOR (returned, not thrown), or undefined.
 */
export function checkFeeFloor(context: Pick<RelayerContext, 'config'>, request: RelayRequest): RelayError | undefined {
  const floor = context.config.feeFloorBps
  if (request.order.feeBps < floor) {
    return new RelayError('FEE_BELOW_FLOOR', `feeBps ${request.order.feeBps} is below this relayer's floor of ${floor}; raise feeBps or choose another relayer (GET /info)`)
  }
  return undefined
}
