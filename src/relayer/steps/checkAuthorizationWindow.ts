import type { RelayRequest } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'

/** Seconds the transaction may need to land; an authorization closer to expiry is refused. */
export const authorizationSafetyMarginSeconds = 2n

/**
 * Step 4: the signed window must still be open, by the chain's clock, with a small
 * margin for the transaction to be mined. (Not-yet-valid windows are left to the
 * simulation, which reports the token's `authorization not yet valid`.)
 * @throws RelayError AUTH_EXPIRED, UPSTREAM_RPC (the chain time could not be read)
 */
export async function checkAuthorizationWindow(context: Pick<RelayerContext, 'clock'>, request: RelayRequest): Promise<void> {
  const validBefore = BigInt(request.validBefore)
  let now: bigint
  try {
    now = await context.clock.now()
  } catch (error) {
    throw new RelayError('UPSTREAM_RPC', "the relayer's RPC failed while reading the chain time; retry or try another relayer", { cause: error })
  }
  if (validBefore < now + authorizationSafetyMarginSeconds) {
    throw new RelayError('AUTH_EXPIRED', `authorization window has passed (validBefore ${validBefore}, chain time ${now}); re-sign with a fresh window`)
  }
}
