import type { RelayerInfo } from '../wire/index.ts'
import { createRelayClient } from './createRelayClient.ts'
import { SubmitError } from './SubmitError.ts'

export type ChooseRelayerParameters = {
  /** The chain the order is signed for. */
  chainId: number
  /** The order's `feeBps`: a relayer whose `feeFloorBps` is above it would refuse the order. */
  feeBps: number
  /**
   * The order's `payToken`: a relayer whose `GET /info` lists the tokens it accepts
   * (`acceptedTokens`) without this one, and takes no other, would refuse the order.
   * A relayer that does not say is not skipped for it.
   */
  payToken?: string
  /** How long to wait for each `GET /info` (default 3000 ms). */
  timeoutMs?: number
  /** A fetch implementation (default: the global `fetch`). */
  fetch?: typeof fetch
}

/** Why a relayer was passed over. */
export type SkipReason =
  /** Its `supportedChainIds` do not include the order's chain. */
  | 'WRONG_CHAIN'
  /** Its `feeFloorBps` is above the order's `feeBps`: it would answer FEE_BELOW_FLOOR. */
  | 'FEE_FLOOR_ABOVE_ORDER'
  /** It says which pay tokens it accepts, and the order's is not one of them: it would answer FEE_BELOW_FLOOR. */
  | 'TOKEN_NOT_ACCEPTED'
  /** No answer (refused, timed out). */
  | 'UNREACHABLE'
  /** It answered something that is not a RelayerInfo. */
  | 'BAD_RESPONSE'
  /** It would take the order, but another one asks a lower floor (or the same, listed earlier). */
  | 'NOT_CHEAPEST'

export type SkippedRelayer = { url: string; reason: SkipReason; message: string }

export type ChooseRelayerResult = {
  /** The relayer to use: the lowest `feeFloorBps` that serves the chain (ties: first listed); undefined when none fits. */
  chosen: { url: string; info: RelayerInfo } | undefined
  /** Every other relayer, in the order given, with the reason it was not chosen. */
  skipped: SkippedRelayer[]
}

/**
 * Reads every relayer's `GET /info` at once (each with a timeout) and picks the one
 * that serves `chainId` with the lowest fee floor not above the order's `feeBps`
 * (ties: the first listed), and accepts the order's `payToken` when it says which tokens
 * it accepts. Relayers off the chain, above the fee, refusing the token, unreachable or
 * answering something that is not a RelayerInfo are skipped, each with the reason.
 *
 * @example
 * import { chooseRelayer, createRelayClient } from 'order-relay/client'
 * const { chosen, skipped } = await chooseRelayer(['https://a.example', 'https://b.example'], { chainId: 421614, feeBps: 50, payToken: usdc })
 * if (!chosen) throw new Error(skipped.map((s) => `${s.url}: ${s.message}`).join('\n'))
 * await createRelayClient({ url: chosen.url }).broker(request)
 */
export async function chooseRelayer(urls: readonly string[], parameters: ChooseRelayerParameters): Promise<ChooseRelayerResult> {
  const { chainId, feeBps } = parameters
  const timeoutMs = parameters.timeoutMs ?? 3_000
  const answers = await Promise.all(
    urls.map(async (url): Promise<{ url: string; info: RelayerInfo } | { skip: SkippedRelayer }> => {
      try {
        const info = await createRelayClient({ url, timeoutMs, ...(parameters.fetch ? { fetch: parameters.fetch } : {}) }).info()
        return { url, info }
      } catch (error) {
        const failure = error instanceof SubmitError ? error : new SubmitError('BAD_RESPONSE', String(error), { status: 0 })
        const reason: SkipReason = failure.code === 'NETWORK' ? 'UNREACHABLE' : 'BAD_RESPONSE'
        return { skip: { url, reason, message: failure.message } }
      }
    }),
  )

  const verdicts = answers.map((answer): SkippedRelayer | { url: string; info: RelayerInfo } => {
    if ('skip' in answer) return answer.skip
    const { url, info } = answer
    if (!info.supportedChainIds.includes(chainId)) {
      return { url, reason: 'WRONG_CHAIN', message: `serves chain ${info.supportedChainIds.join(', ')}, not ${chainId}` }
    }
    if (info.feeFloorBps > feeBps) {
      return { url, reason: 'FEE_FLOOR_ABOVE_ORDER', message: `fee floor ${info.feeFloorBps} bps is above the order's ${feeBps} bps` }
    }
    const token = parameters.payToken?.toLowerCase()
    if (token && info.acceptedTokens && !info.acceptsUnpricedTokens && !info.acceptedTokens.some((each) => each.priced && each.token.toLowerCase() === token)) {
      const listed = info.acceptedTokens.filter((each) => each.priced).map((each) => each.token)
      return { url, reason: 'TOKEN_NOT_ACCEPTED', message: `does not accept pay token ${parameters.payToken} (accepts ${listed.length > 0 ? listed.join(', ') : 'none'})` }
    }
    return { url, info }
  })
  const fitting = verdicts.filter((verdict) => !('reason' in verdict)) as { url: string; info: RelayerInfo }[]
  // reduce keeps the earlier one on a tie: ties go to the first listed.
  const chosen = fitting.reduce<ChooseRelayerResult['chosen']>((best, next) => (best && best.info.feeFloorBps <= next.info.feeFloorBps ? best : next), undefined)
  const skipped = verdicts
    .filter((verdict) => verdict !== chosen)
    .map((verdict): SkippedRelayer => {
      if ('reason' in verdict) return verdict
      return {
        url: verdict.url,
        reason: 'NOT_CHEAPEST',
        message: `fee floor ${verdict.info.feeFloorBps} bps; ${chosen!.url} asks ${chosen!.info.feeFloorBps} bps`,
      }
    })
  return { chosen, skipped }
}
