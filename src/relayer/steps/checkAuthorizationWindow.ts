import type { RelayRequest } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'

import { authorizationSafetyMarginSeconds } from '../authorizationMargin.ts'

export { authorizationSafetyMarginSeconds }

/**
 * Step 4: the signed window must be open at the time the transaction will be mined,
 * taken on the safe side each way (the chain clock: `now()`, never behind the wall
 * clock, for expiry; `earliestFor()`, never ahead of it, for `validAfter`), with a small
 * margin to be mined in.
 * - Expired (`validBefore` at or before that time plus the margin; Circle's USDC wants
 *   `now < validBefore`): AUTH_EXPIRED, re-sign.
 * - Not yet valid under the strictest token rule, Circle's USDC `now > validAfter`
 *   (the mock takes `>=`): WOULD_REVERT saying from when it is valid. Not AUTH_EXPIRED:
 *   nothing has passed and nothing needs re-signing; the same order can be sent again
 *   once its window opens. Refused before any simulation, so no gas, and no RPC call
 *   unless the window opens within the clock's rounding (then one fresh read of the chain time).
 * @throws RelayError AUTH_EXPIRED, WOULD_REVERT, UPSTREAM_RPC (the chain time could not be read)
 */
export async function checkAuthorizationWindow(context: Pick<RelayerContext, 'clock'>, request: RelayRequest): Promise<void> {
  const validBefore = BigInt(request.validBefore)
  const validAfter = BigInt(request.validAfter)
  let minedAt: bigint
  let earliest: bigint
  try {
    minedAt = await context.clock.now()
    earliest = await context.clock.earliestFor(validAfter)
  } catch (error) {
    throw new RelayError('UPSTREAM_RPC', "the relayer's RPC failed while reading the chain time; retry or try another relayer", { cause: error })
  }
  if (validBefore <= minedAt + authorizationSafetyMarginSeconds) {
    throw new RelayError('AUTH_EXPIRED', `authorization window has passed (validBefore ${validBefore}, ${await whoseTime(context, minedAt)}); re-sign with a fresh window`)
  }
  if (earliest <= validAfter) {
    const validFrom = validAfter + 1n
    throw new RelayError(
      'WOULD_REVERT',
      `would revert: authorization not yet valid (validAfter ${validAfter}, ${await whoseTime(context, earliest)}); valid from ${validFrom} (unix seconds, in ${validFrom - earliest} s): send the same order again then, no need to re-sign`,
    )
  }
}

/**
 * "chain time T" when T is the chain's own estimate; when this host's clock decided
 * (for `validAfter`, a chain ahead of it, such as a warped devnet: a window is never
 * opened early on the chain's word alone; for expiry, a chain behind it, such as an
 * idle one whose head is old), "this relayer's clock T" and the chain's estimate beside it.
 */
async function whoseTime(context: Pick<RelayerContext, 'clock'>, time: bigint): Promise<string> {
  const chain = await context.clock.chainEstimate?.().catch(() => undefined)
  if (chain === undefined || chain === time) return `chain time ${time}`
  return `this relayer's clock ${time}; chain time ${chain}`
}
