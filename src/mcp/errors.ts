import { BaseError, HttpRequestError, TimeoutError } from 'viem'
import { OrderRelayError } from '../errors/index.ts'
import { errorLine } from '../shared/index.ts'

/** What went wrong answering `is_encumbered` or replaying a receipt; `code` is stable, the message says what to do. */
export type McpErrorCode =
  | 'INVALID_INPUT'
  | 'FUTURE_BLOCK'
  | 'WRONG_CHAIN'
  | 'NO_REGISTRY'
  | 'NEEDS_ARCHIVE_NODE'
  | 'RPC_UNREACHABLE'
  | 'RPC_ERROR'
  | 'INVALID_RECEIPT'

/** A failure with a code, reported as a tool error (`isError: true`) or by `verify-receipt`. */
export class McpError extends OrderRelayError<McpErrorCode> {
  override name = 'McpError'
  constructor(code: McpErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options)
  }
}

/**
 * The scheme, host and port of an RPC URL: enough to say which node, without the
 * path or query, where providers put API keys.
 */
export function rpcOrigin(rpcUrl: string): string {
  try {
    return new URL(rpcUrl).origin
  } catch {
    return 'the configured RPC'
  }
}

/** True when the node could not be reached at all (refused, DNS, timeout), as opposed to answering with an error. */
export function isUnreachable(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false
  return error.walk((cause) => cause instanceof HttpRequestError || cause instanceof TimeoutError) !== null
}

// How nodes say they no longer hold the state of an old block: geth ("missing trie
// node", "historical state … is not available", "header not found"), nethermind
// ("No state available"), reth/erigon ("pruned", "state history"), anvil with
// --prune-history ("BlockOutOfRangeError").
const missingState = [
  /missing trie node/i,
  /header not found/i,
  /state[^.]{0,80}not available/i,
  /no state (is )?available/i,
  /pruned/i,
  /state histor/i,
  /historical state/i,
  /BlockOutOfRange/i,
  /distance to target block exceeds/i,
  /archive/i,
]

/** True when the node answered that it has no state for the block (it is not an archive node). */
export function isMissingState(error: unknown): boolean {
  const texts: string[] = []
  if (error instanceof BaseError) {
    error.walk((cause) => {
      if (cause instanceof BaseError) texts.push(cause.details, cause.shortMessage)
      else if (cause instanceof Error) texts.push(cause.message)
      return false
    })
  } else if (error instanceof Error) texts.push(error.message)
  return texts.some((text) => missingState.some((pattern) => pattern.test(text)))
}

/** Turns any failure talking to the node into an McpError naming the node by its origin. */
export function toRpcError(error: unknown, rpcUrl: string, doing: string): McpError {
  if (error instanceof McpError) return error
  if (isUnreachable(error)) return new McpError('RPC_UNREACHABLE', `cannot reach the RPC at ${rpcOrigin(rpcUrl)} (${doing}): ${errorLine(error)}`, { cause: error })
  if (isMissingState(error)) {
    return new McpError('NEEDS_ARCHIVE_NODE', `the RPC at ${rpcOrigin(rpcUrl)} has no state for that block (${errorLine(error)}): this needs an archive node`, { cause: error })
  }
  return new McpError('RPC_ERROR', `the RPC at ${rpcOrigin(rpcUrl)} failed ${doing}: ${errorLine(error)}`, { cause: error })
}

/** Runs one request against the node, turning any failure into an McpError (see toRpcError). */
export async function withRpc<T>(rpcUrl: string, doing: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    throw toRpcError(error, rpcUrl, doing)
  }
}
