import type { Hex } from 'viem'
import { OrderRelayError } from '../errors/index.ts'
import type { Logger } from '../shared/index.ts'
import { fixFor, type RelayErrorCode, relayErrorCodes, type RelayFailure, type Revert } from '../wire/index.ts'

/**
 * A failure of the `POST /broker` pipeline that maps to one wire code and status.
 * Its message is what the client reads: it says what went wrong and never carries
 * the order, the signature or a key. `toBody()` is the RelayFailure body.
 */
export class RelayError extends OrderRelayError<RelayErrorCode> {
  // Declared and assigned rather than initialized, as OrderRelayError's: a rejection is built per refused request.
  declare readonly status: number
  /** The transaction this failure concerns, when one was signed (it may have reached the node). */
  declare readonly txHash: Hex | undefined
  /** The decoded revert behind a WOULD_REVERT or AUTH_EXPIRED from simulation: the body's `revert`. */
  declare readonly revert: Revert | undefined

  constructor(code: RelayErrorCode, message: string, options?: { cause?: unknown; txHash?: Hex; revert?: Revert | undefined }) {
    // Built without a stack trace: a RelayError is an answer, not a fault (its `cause`
    // keeps its own), and capturing one under hono's async frames cost 2 µs of every rejection.
    super(code, message, { cause: options?.cause, stackTrace: false })
    this.name = 'RelayError'
    this.status = relayErrorCodes[code].status
    this.txHash = options?.txHash
    this.revert = options?.revert
  }

  /** The RelayFailure body: code and message, and the decoded revert where there is one. */
  override toBody(): RelayFailure & { code: RelayErrorCode } {
    const body: RelayFailure = { ok: false, code: this.code, message: this.message }
    if (this.revert) body.revert = this.revert
    return body
  }

  /** The fix a client should try for this code and message (`fixFor`, the table of docs/routes.md). */
  override get fix(): string | undefined {
    return fixFor(this.code, this.message)
  }
}

/** Anything that is not already a RelayError failed between us and the node: UPSTREAM_RPC, logged without the order. */
export function asRelayError(context: { logger: Logger }, error: unknown): RelayError {
  if (error instanceof RelayError) return error
  context.logger.error(`unexpected failure in the pipeline (${(error as Error)?.name ?? 'unknown'}); answered UPSTREAM_RPC`)
  return new RelayError('UPSTREAM_RPC', "the relayer's RPC failed; retry or try another relayer", { cause: error })
}
