import type { Hex } from 'viem'
import { authorizationSafetyMarginSeconds } from '../authorizationMargin.ts'
import { RelayError } from '../errors.ts'
import type { SendRequest } from './sendRequest.ts'

/** What is asked again once a batch is signed, before anything of it is written or sent. */
export type AfterSigningChecks = {
  /** The latest a tx sent now may be mined at, in unix seconds (the chain clock). */
  minedAt?: () => Promise<bigint>
}

/** The orders of a signed batch that must not be sent (by index, with their answers); `rpcFailed` when the chain time could not be read. */
export type RefusedAfterSigning = { refused: Map<number, RelayError>; rpcFailed: boolean }

/**
 * The window check again once a batch is signed: a slow signer (a remote signer or KMS, up
 * to RELAYER_SIGNER_TIMEOUT_MS) may hold a batch past an order's `validBefore`, and that tx
 * would be a paid revert (AUTH_EXPIRED). Undefined when every order may be sent.
 *
 * @example
 * const late = await refusedAfterSigning(batch.map((item) => item.request), { minedAt })
 * if (late) for (const [i, error] of late.refused) batch[i]!.reject(error)
 */
export async function refusedAfterSigning(requests: readonly SendRequest[], checks: AfterSigningChecks): Promise<RefusedAfterSigning | undefined> {
  const refused = new Map<number, RelayError>()
  if (checks.minedAt && requests.some((request) => request.validBefore !== undefined)) {
    let minedAt: bigint
    try {
      minedAt = await checks.minedAt()
    } catch (error) {
      const failed = new RelayError('UPSTREAM_RPC', "the relayer's RPC failed before broadcast (reading the chain time once the batch was signed); nothing was sent; retry or try another relayer", { cause: error })
      return { refused: new Map(requests.map((_, i) => [i, failed])), rpcFailed: true }
    }
    requests.forEach(({ validBefore }, i) => {
      if (validBefore === undefined || validBefore > minedAt + authorizationSafetyMarginSeconds) return
      refused.set(
        i,
        new RelayError('AUTH_EXPIRED', `authorization window passed while its transaction was being signed (validBefore ${validBefore}, chain time about ${minedAt}); nothing was sent; re-sign with a fresh window`),
      )
    })
  }
  return refused.size > 0 ? { refused, rpcFailed: false } : undefined
}

/** An order's tx as it is announced before its broadcast. */
export type AnnouncedTx = { orderHash: Hex; txHash: Hex }

/**
 * Where a signed batch's order txs are made known before their broadcast (replicas: the
 * shared state, while each order's claim holds; createReplicas.ts `announce`).
 */
export type Announcer = {
  /** Undefined when every tx was announced; else, by index, the answer of each order that must not be sent. */
  announce(txs: readonly AnnouncedTx[]): Promise<Map<number, RelayError> | undefined>
  /** Announced txs that are not broadcast after all (their batch is signed again): to be taken back. */
  notSent(txs: readonly AnnouncedTx[]): void
}

/** The order txs of a signed batch (`signed[i]` is `requests[i]`'s tx), and the batch index of each. */
export function orderTxs(requests: readonly SendRequest[], signed: readonly { hash: Hex }[]): { txs: AnnouncedTx[]; indices: number[] } {
  const indices: number[] = []
  const txs: AnnouncedTx[] = []
  requests.forEach((request, i) => {
    if (!request.orderHash) return
    indices.push(i)
    txs.push({ orderHash: request.orderHash, txHash: signed[i]!.hash })
  })
  return { txs, indices }
}

/**
 * Announces a signed batch's order txs (`signed[i]` is `requests[i]`'s tx) before anything
 * of it is written or sent. Undefined when all were announced; else the orders that must
 * not be sent, by batch index: the whole batch is then dropped (signed again without them),
 * so the txs announced with it are handed back to `notSent`.
 */
export async function refusedAtAnnounce(requests: readonly SendRequest[], signed: readonly { hash: Hex }[], announcer: Announcer): Promise<Map<number, RelayError> | undefined> {
  const { txs, indices } = orderTxs(requests, signed)
  if (txs.length === 0) return undefined
  const refused = await announcer.announce(txs)
  if (!refused) return undefined
  announcer.notSent(txs.filter((_, j) => !refused.has(j)))
  return new Map([...refused].map(([j, error]) => [indices[j]!, error]))
}
