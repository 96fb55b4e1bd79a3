import type { Hex } from 'viem'
import type { RelaySuccess } from '../wire/index.ts'
import type { RelayerContext } from './context.ts'
import { RelayError } from './errors.ts'
import { broadcast } from './steps/broadcast.ts'
import { checkAuthorizationWindow } from './steps/checkAuthorizationWindow.ts'
import { checkFeeFloor } from './steps/checkFeeFloor.ts'
import { checkOrderHash } from './steps/checkOrderHash.ts'
import { decodeSettlement } from './steps/decodeSettlement.ts'
import { resumeUnconfirmed } from './steps/resumeUnconfirmed.ts'
import { simulate } from './steps/simulate.ts'
import { validateRequest } from './steps/validateRequest.ts'

const settledMemory = 10_000

/**
 * `POST /broker` (SPEC.md 4.3): validate → orderHash → fee floor → window →
 * simulate → broadcast → decode. The orderHash is the idempotency key: a duplicate
 * arriving while the first is in flight shares its outcome instead of broadcasting,
 * and a retry of an order whose receipt timed out looks at that tx first.
 * @throws RelayError for every refusal; anything else unexpected becomes UPSTREAM_RPC.
 */
export async function relay(context: RelayerContext, body: unknown): Promise<RelaySuccess> {
  const request = validateRequest(context, body)
  const orderHash = checkOrderHash(request)
  checkFeeFloor(context, request)

  const running = context.inflight.get(orderHash)
  if (running) return running

  const adapter = request.order.adapter as Hex
  const settlement = (async () => {
    const resumed = await resumeUnconfirmed(context, orderHash, adapter)
    if (resumed) {
      remember(context, orderHash, resumed.txHash as Hex)
      return resumed
    }
    await checkAuthorizationWindow(context, request)
    const simulated = await simulate(context, request, orderHash)
    const receipt = await broadcast(context, simulated, adapter, orderHash)
    const success = decodeSettlement(receipt, context.config.broker, adapter, orderHash)
    remember(context, orderHash, success.txHash as Hex)
    return success
  })()
  context.inflight.set(orderHash, settlement)
  try {
    return await settlement
  } catch (error) {
    throw asRelayError(context, error)
  } finally {
    context.inflight.delete(orderHash)
  }
}

function remember(context: RelayerContext, orderHash: Hex, txHash: Hex) {
  context.settled.set(orderHash, txHash)
  if (context.settled.size > settledMemory) {
    const oldest = context.settled.keys().next().value
    if (oldest) context.settled.delete(oldest)
  }
}

/** Anything that is not already a RelayError failed between us and the node. */
export function asRelayError(context: Pick<RelayerContext, 'logger'>, error: unknown): RelayError {
  if (error instanceof RelayError) return error
  context.logger.error(`unexpected failure in the pipeline (${(error as Error)?.name ?? 'unknown'}); answered UPSTREAM_RPC`)
  return new RelayError('UPSTREAM_RPC', "the relayer's RPC failed; retry or try another relayer", { cause: error })
}
