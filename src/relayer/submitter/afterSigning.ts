import type { Hex } from 'viem'
import { authorizationSafetyMarginSeconds } from '../authorizationMargin.ts'
import { RelayError } from '../errors.ts'
import type { SendRequest } from './sendRequest.ts'

/** What is asked again once a batch is signed, before anything of it is written or sent. */
export type AfterSigningChecks = {
  /** The latest a tx sent now may be mined at, in unix seconds (the chain clock). */
  minedAt?: () => Promise<bigint>
  /**
   * Whether this process may still send the order (replicas: its claim still held in Redis
   * and the shared state whole): undefined, or the answer its client gets instead.
   */
  stillOurs?: (orderHash: Hex) => RelayError | undefined
}

/** The orders of a signed batch that must not be sent (by index, with their answers); `rpcFailed` when the chain time could not be read. */
export type RefusedAfterSigning = { refused: Map<number, RelayError>; rpcFailed: boolean }

/**
 * The checks again once a batch is signed. A slow signer (a remote signer or KMS, up to
 * RELAYER_SIGNER_TIMEOUT_MS) may hold a batch past an order's `validBefore`, and that tx
 * would be a paid revert (AUTH_EXPIRED). Meanwhile a replica's claim may have been lost
 * (Redis silent past the claim's lease, or emptied), and another replica may be sending
 * the order (UPSTREAM_RPC: the client sends the same request again). Undefined when every
 * order may be sent.
 *
 * @example
 * const late = await refusedAfterSigning(batch.map((item) => item.request), { minedAt, stillOurs })
 * if (late) for (const [i, error] of late.refused) batch[i]!.reject(error)
 */
export async function refusedAfterSigning(requests: readonly SendRequest[], checks: AfterSigningChecks): Promise<RefusedAfterSigning | undefined> {
  const refused = new Map<number, RelayError>()
  if (checks.stillOurs) {
    requests.forEach((request, i) => {
      const lost = request.orderHash ? checks.stillOurs!(request.orderHash) : undefined
      if (lost) refused.set(i, lost)
    })
  }
  if (checks.minedAt && requests.some((request, i) => request.validBefore !== undefined && !refused.has(i))) {
    let minedAt: bigint
    try {
      minedAt = await checks.minedAt()
    } catch (error) {
      const failed = new RelayError('UPSTREAM_RPC', "the relayer's RPC failed before broadcast (reading the chain time once the batch was signed); nothing was sent; retry or try another relayer", { cause: error })
      return { refused: new Map(requests.map((_, i) => [i, refused.get(i) ?? failed])), rpcFailed: true }
    }
    requests.forEach(({ validBefore }, i) => {
      if (validBefore === undefined || refused.has(i) || validBefore > minedAt + authorizationSafetyMarginSeconds) return
      refused.set(
        i,
        new RelayError('AUTH_EXPIRED', `authorization window passed while its transaction was being signed (validBefore ${validBefore}, chain time about ${minedAt}); nothing was sent; re-sign with a fresh window`),
      )
    })
  }
  return refused.size > 0 ? { refused, rpcFailed: false } : undefined
}
