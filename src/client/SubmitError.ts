import { OrderRelayError } from '../errors/index.ts'
import { type EdgeErrorCode, fixFor, type RelayErrorCode, type Revert } from '../wire/index.ts'

/**
 * Why a relayer call failed: a relayer code (SPEC.md 7.1), a hardened-edge code
 * (7.2), `BAD_RESPONSE` (the answer was not JSON, or not the JSON the wire schemas
 * describe), `NETWORK` (no HTTP answer: refused, reset, DNS, timed out) or `TIMEOUT`
 * (`waitForOrder` saw no final status in time).
 */
export type SubmitErrorCode = RelayErrorCode | EdgeErrorCode | 'BAD_RESPONSE' | 'NETWORK' | 'TIMEOUT'

export type SubmitErrorOptions = {
  /** HTTP status of the answer; 0 when none arrived (`NETWORK`). */
  status: number
  /** Seconds to wait before retrying, from the `Retry-After` header (429 answers). */
  retryAfter?: number | undefined
  /** The decoded revert a WOULD_REVERT or AUTH_EXPIRED answer carried. */
  revert?: Revert | undefined
  cause?: unknown
}

/**
 * A failed `info()` or `broker()` call. `code` says what to do next, and `fix` says it
 * in words (`fixFor`: docs/routes.md's "what to do" for this code and message);
 * `message` is the relayer's own message where it sent one. Never carries the order,
 * the signature or a key. An `OrderRelayError`, as every error of order-relay.
 *
 * @example
 * import { createRelayClient, SubmitError } from 'order-relay/client'
 * try {
 *   await createRelayClient({ url }).broker(request)
 * } catch (error) {
 *   if (error instanceof SubmitError && error.code === 'RATE_LIMITED') await sleep(error.retryAfter! * 1000)
 * }
 */
export class SubmitError extends OrderRelayError<SubmitErrorCode> {
  override name = 'SubmitError'
  /** HTTP status of the answer; 0 when none arrived (`NETWORK`). */
  readonly status: number
  /** Seconds to wait before retrying (from `Retry-After`), when the relayer said. */
  readonly retryAfter: number | undefined
  /**
   * The revert the relayer's simulation met, decoded (`{ contract, name, args, selector, data }`),
   * on WOULD_REVERT and AUTH_EXPIRED answers that came from one: match `revert.name` and
   * `revert.args` rather than the message's text.
   */
  readonly revert: Revert | undefined

  constructor(code: SubmitErrorCode, message: string, options: SubmitErrorOptions) {
    super(code, message, { cause: options.cause })
    this.status = options.status
    this.retryAfter = options.retryAfter
    this.revert = options.revert
  }

  /** What to do about it, for this code and message (`fixFor`). */
  override get fix(): string | undefined {
    return fixFor(this.code, this.message)
  }
}
