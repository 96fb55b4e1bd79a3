/** How a command ends when this error stops it: 1 a failure it reports, 2 a usage or configuration error. */
export type ExitCode = 1 | 2

export type OrderRelayErrorOptions = {
  /** Lines under the short message (the list of problems, what was tried); `message` holds them too. */
  details?: string | undefined
  /** What the user should do, where the message does not say it itself. */
  fix?: string | undefined
  /** The failure underneath (a viem error, a SQLite error), for `walk`. */
  cause?: unknown
  /** The CLI's exit code when this error ends a command (default 1). */
  exitCode?: ExitCode | undefined
  /**
   * False: built without a stack trace. For an error that is an answer, not a fault, made
   * on a hot path: capturing a stack under hono's async frames costs microseconds of every
   * rejection. Its `cause` keeps its own.
   */
  stackTrace?: boolean | undefined
}

/** The `{ok: false, code, message}` body a service answers a failure with. */
export type FailureBody<code extends string = string> = { ok: false; code: code; message: string }

/**
 * The base of every order-relay error: a stable `code` (UPPER_SNAKE, what a program
 * branches on), a `shortMessage` (what went wrong, usually one line), optional
 * `details` (lines under it, such as a list of problems), an optional `fix` (what to
 * do, where the message does not say it), the `cause` underneath, and the `exitCode`
 * the CLI ends with. `message` is the short message followed by the details; with the
 * fix, it says what to do. `walk` follows the cause chain. docs/errors.md lists every
 * code.
 *
 * @example
 * class JournalLockedError extends OrderRelayError<'JOURNAL_LOCKED'> {
 *   override name = 'JournalLockedError'
 *   constructor(message: string) {
 *     super('JOURNAL_LOCKED', message)
 *   }
 * }
 */
export class OrderRelayError<code extends string = string> extends Error {
  // Fields are declared and assigned, not initialized: on Bun an initialized class field
  // is defined (Object.defineProperty semantics), which costs as much again as the rest
  // of building a RelayError; an assignment does not.
  declare readonly code: code
  /** What went wrong: `message` without its details. */
  declare readonly shortMessage: string
  /** The lines `message` carries under the short message, when there are any. */
  declare readonly details: string | undefined
  /** The CLI's exit code when this error ends a command. */
  declare readonly exitCode: ExitCode
  declare private readonly givenFix: string | undefined

  constructor(code: code, shortMessage: string, options: OrderRelayErrorOptions = {}) {
    const limit = options.stackTrace === false ? Error.stackTraceLimit : undefined
    if (limit !== undefined) Error.stackTraceLimit = 0
    super(options.details ? `${shortMessage}\n${options.details}` : shortMessage, options.cause === undefined ? undefined : { cause: options.cause })
    if (limit !== undefined) Error.stackTraceLimit = limit
    this.name = 'OrderRelayError'
    this.code = code
    this.shortMessage = shortMessage
    this.details = options.details || undefined
    this.exitCode = options.exitCode ?? 1
    this.givenFix = options.fix
  }

  /** What the user should do, where the message does not say it itself (undefined otherwise). */
  get fix(): string | undefined {
    return this.givenFix
  }

  /** The `{ok: false, code, message}` body a service answers this failure with. */
  toBody(): FailureBody<code> {
    return { ok: false, code: this.code, message: this.message }
  }

  /**
   * Follows the `cause` chain from this error: without `matches`, the deepest cause; with
   * it, the first error of the chain (this one included) it matches, or null.
   *
   * @example
   * error.walk((cause) => cause instanceof HttpRequestError) // the unreachable node, or null
   */
  walk(matches?: (error: unknown) => boolean): unknown {
    let current: unknown = this
    // A cause chain can loop (an error made its own cause's cause): stop after 32 links.
    for (let depth = 0; depth < 32; depth++) {
      if (matches?.(current)) return current
      const cause = typeof current === 'object' && current !== null && 'cause' in current ? current.cause : undefined
      if (cause === undefined || cause === null) break
      current = cause
    }
    return matches ? null : current
  }
}
