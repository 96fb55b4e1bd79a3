import type { EdgeErrorCode, RelayErrorCode } from '../wire/index.ts'

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
  cause?: unknown
}

/**
 * A failed `info()` or `broker()` call. `code` says what to do next (SPEC.md 7.1's
 * "Fix" column); `message` is the relayer's own message where it sent one. Never
 * carries the order, the signature or a key.
 *
 * @example
 * import { createRelayClient, SubmitError } from 'order-relay/client'
 * try {
 *   await createRelayClient({ url }).broker(request)
 * } catch (error) {
 *   if (error instanceof SubmitError && error.code === 'RATE_LIMITED') await sleep(error.retryAfter! * 1000)
 * }
 */
export class SubmitError extends Error {
  override name = 'SubmitError'
  readonly code: SubmitErrorCode
  /** HTTP status of the answer; 0 when none arrived (`NETWORK`). */
  readonly status: number
  /** Seconds to wait before retrying (from `Retry-After`), when the relayer said. */
  readonly retryAfter: number | undefined

  constructor(code: SubmitErrorCode, message: string, options: SubmitErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.status = options.status
    this.retryAfter = options.retryAfter
  }
}
