import type { Hex } from 'viem'
import { type RelayErrorCode, relayErrorCodes } from '../wire/index.ts'

/**
 * A failure of the `POST /broker` pipeline that maps to one wire code and status.
 * Its message is what the client reads: it says what went wrong and never carries
 * the order, the signature or a key.
 */
export class RelayError extends Error {
  override name = 'RelayError'
  readonly code: RelayErrorCode
  readonly status: number
  /** The transaction this failure concerns, when one was signed (it may have reached the node). */
  readonly txHash: Hex | undefined

  constructor(code: RelayErrorCode, message: string, options?: { cause?: unknown; txHash?: Hex }) {
    // Built without a stack trace: a RelayError is an answer, not a fault (its `cause`
    // keeps its own), and capturing one under hono's async frames cost 2 µs of every rejection.
    const stackTraceLimit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    Error.stackTraceLimit = stackTraceLimit
    this.code = code
    this.status = relayErrorCodes[code].status
    this.txHash = options?.txHash
  }

  /** The RelayFailure body. */
  toBody() {
    return { ok: false as const, code: this.code, message: this.message }
  }
}
