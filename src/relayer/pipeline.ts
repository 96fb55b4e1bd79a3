import type { Hex } from 'viem'
import { encodeBrokerCall } from '../chain/index.ts'
import type { RelayRequest, RelaySuccess } from '../wire/index.ts'
import type { RelayerContext } from './context.ts'
import { asRelayError, RelayError } from './errors.ts'
import { answerFromReplicas, outcomeToPublish } from './steps/answerFromReplicas.ts'
import { broadcast } from './steps/broadcast.ts'
import { checkAuthorizationWindow } from './steps/checkAuthorizationWindow.ts'
import { checkCooldown } from './steps/checkCooldown.ts'
import { checkFeeFloor } from './steps/checkFeeFloor.ts'
import { checkGasPrice } from './steps/checkGasPrice.ts'
import { checkOrderHash } from './steps/checkOrderHash.ts'
import { checkPaysForItself } from './steps/checkPaysForItself.ts'
import { checkTokenAccepted, ensureTokenValued } from './steps/checkTokenAccepted.ts'
import { resumeUnconfirmed } from './steps/resumeUnconfirmed.ts'
import { answerExpired, followStatus, settledWhileWaiting } from './steps/settledAnswers.ts'
import { simulate } from './steps/simulate.ts'
import { validateRequest } from './steps/validateRequest.ts'

/**
 * `POST /broker` (SPEC.md 4.3): validate → orderHash → fee floor and accepted token →
 * claim → journal → cool-down → window → gas price cap → simulate → pays for itself →
 * broadcast (judged again at its fees, journaled first) → outcome.
 * The orderHash is the idempotency key, across restarts: a duplicate arriving while
 * the first is being relayed waits for it and shares its outcome, and an order the
 * journal holds is answered from its tx, never broadcast a second time.
 * @throws RelayError for every refusal; anything else unexpected becomes UPSTREAM_RPC.
 */
export async function relay(context: RelayerContext, body: unknown): Promise<RelaySuccess> {
  const checked = checkRequest(context, body)
  if (checked instanceof RelayError) throw checked
  return relayChecked(context, checked)
}

/**
 * The pipeline bound to one relayer's context, as `POST /broker` runs it (http/brokerRoute.ts):
 * `check` is `checkRequest`, `relay` is `relayChecked`.
 *
 * @example
 * const { app } = createRelayerApp(context, { version, pipeline: orderPipeline(context) })
 */
export function orderPipeline(context: RelayerContext) {
  return {
    check: (body: unknown) => checkRequest(context, body),
    relay: (checked: CheckedRequest, options?: RelayOptions) => relayChecked(context, checked, options),
  }
}

/** A request that passed the checks needing no I/O, with its recomputed orderHash. */
export type CheckedRequest = { request: RelayRequest; orderHash: Hex }

/**
 * Steps 1-3, validate → orderHash → fee floor and accepted token, the checks that need no
 * I/O. Their refusal (most refusals end here) is returned, not thrown: under load a throw
 * cost more than the checks themselves (~10 µs in the server, against ~0.5 µs in a loop).
 * @returns the checked request, or a RelayError MALFORMED_ORDER, ORDERHASH_MISMATCH or FEE_BELOW_FLOOR.
 */
export function checkRequest(context: RelayerContext, body: unknown): CheckedRequest | RelayError {
  const checked = checkSpecSteps(context, body)
  if (checked instanceof RelayError) return checked
  return checkTokenAccepted(context, checked.request) ?? checked
}

/** SPEC.md 4.3's steps 1-3 alone (validate → orderHash → fee floor), without the accepted-token check. */
export function checkSpecSteps(context: Pick<RelayerContext, 'config'>, body: unknown): CheckedRequest | RelayError {
  const request = validateRequest(context, body)
  if (request instanceof RelayError) return request
  const orderHash = checkOrderHash(request)
  if (orderHash instanceof RelayError) return orderHash
  return checkFeeFloor(context, request) ?? { request, orderHash }
}

/** How often a request waiting for an order's claim asks the chain whether the order settled. */
export const claimWaitChainLookMs = 1_000
/** How a caller follows a relay beyond its outcome. */
export type RelayOptions = {
  /** Called once the node accepted this order's tx (the receipt is still to come): `Prefer: respond-async` answers 202 then. */
  onBroadcast?: (txHash: Hex) => void
}

/** `relay` from step 4 on (claim → … → outcome), for a request `checkRequest` passed. */
export async function relayChecked(context: RelayerContext, { request, orderHash }: CheckedRequest, options: RelayOptions = {}): Promise<RelaySuccess> {
  const deadline = Date.now() + context.config.receiptTimeoutMs
  let shared = false
  // The first look at the chain once the wait is longer than a relay usually takes.
  let chainLookAt = Date.now() + claimWaitChainLookMs
  while (!(await context.claims.claim(orderHash))) {
    // It shares the outcome of the request it waits for, unless that outcome was already
    // settled and delivered before it came (then it is a replay like any other).
    const slot = context.journal.byOrder(orderHash)
    shared = shared || slot === undefined || slot.status === 'pending'
    const left = deadline - Date.now()
    if (left <= 0) {
      throw new RelayError('UPSTREAM_RPC', `another request for this order is still being relayed: ${followStatus(orderHash)}`)
    }
    // The holder may be a replica that died or went silent: once the chain says the
    // order settled, that is the answer, without waiting for its claim to expire.
    if (shared && Date.now() >= chainLookAt) {
      const settled = await settledWhileWaiting(context, request.order, orderHash)
      if (settled) return settled
      chainLookAt = Date.now() + claimWaitChainLookMs
    }
    await context.claims.released(orderHash, Math.max(1, Math.min(left, chainLookAt - Date.now())))
  }
  let failure: RelayError | undefined
  try {
    return await settle(context, request, orderHash, shared, options)
  } catch (error) {
    failure = asRelayError(context, error)
    throw failure
  } finally {
    // Replicas: where this order went, published as the claim is released (one step of one call).
    if (context.replicas) await context.replicas.claims.releaseWith(orderHash, outcomeToPublish(context, orderHash, failure))
    else await context.claims.release(orderHash)
  }
}

async function settle(context: RelayerContext, request: RelayRequest, orderHash: Hex, shared: boolean, options: RelayOptions): Promise<RelaySuccess> {
  const resumed = await resumeUnconfirmed(context, orderHash, shared)
  if (resumed) return resumed
  const elsewhere = await answerFromReplicas(context, request, orderHash, shared)
  if (elsewhere) return elsewhere
  try {
    return await relayNew(context, request, orderHash, options)
  } catch (error) {
    // A passed window tells the client to sign again: only for an order that did not settle within it.
    if (error instanceof RelayError && error.code === 'AUTH_EXPIRED') return answerExpired(context, request.order, orderHash, shared, error)
    throw error
  }
}

/** An order neither this journal nor the replicas hold: the checks, the simulation, the broadcast. */
async function relayNew(context: RelayerContext, request: RelayRequest, orderHash: Hex, options: RelayOptions): Promise<RelaySuccess> {
  checkKeyAlone(context)
  checkCooldown(context, request.order)
  await checkAuthorizationWindow(context, request)
  await ensureTokenValued(context, request)
  const fees = await checkGasPrice(context)
  const data = encodeBrokerCall(request)
  // The L1 data component (Arbitrum-family chains) is read beside the simulation, not after it.
  const l1 = settled(context.economics.l1.gasFor(context.config.broker, data))
  const simulated = await simulate(context, request, orderHash, data, fees)
  const l1Gas = await l1
  if (l1Gas instanceof Error) throw new RelayError('UPSTREAM_RPC', "the relayer's RPC failed while reading the L1 data cost (NodeInterface); retry or try another relayer", { cause: l1Gas })
  const { terms } = await checkPaysForItself(context, request, simulated, fees, l1Gas)
  return broadcast(context, simulated, request, orderHash, terms, options.onBroadcast)
}

/**
 * While another process signs with this relayer's key (keyGuard), no new order is taken:
 * each could be sent by both and the loser's revert paid. Nor while the key's signer (a
 * remote signer, KMS) fails or times out: each would wait on a signer that does not answer.
 * @throws RelayError INSUFFICIENT_RELAYER_GAS saying why
 */
function checkKeyAlone(context: Pick<RelayerContext, 'keyGuard' | 'submitter'>) {
  const conflict = context.keyGuard.conflict() ?? context.submitter.signerDown()
  if (conflict) throw new RelayError('INSUFFICIENT_RELAYER_GAS', `${conflict}; try another relayer`)
}

/** A promise that never rejects: its error comes back as the value (awaited later, or never). */
const settled = <T>(promise: Promise<T>): Promise<T | Error> => promise.catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))
