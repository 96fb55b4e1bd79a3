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
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.status = relayErrorCodes[code].status
    this.txHash = options?.txHash
  }

  /** The RelayFailure body. */
  toBody() {
    return { ok: false as const, code: this.code, message: this.message }
  }
}
