import { BaseError, HttpRequestError, TimeoutError, WebSocketRequestError } from 'viem'
import { errorLine } from '../shared/index.ts'

/** Every message of an error and its causes, for matching a node's wording. */
export function errorText(error: unknown): string {
  const parts: string[] = []
  let current: unknown = error
  for (let i = 0; current && i < 8; i++) {
    const e = current as { message?: unknown; details?: unknown; shortMessage?: unknown }
    parts.push(String(e.shortMessage ?? ''), String(e.details ?? ''), String(e.message ?? ''))
    current = (current as { cause?: unknown }).cause
  }
  return parts.join(' ')
}

/** The node refused a call because the key cannot pay gas × maxFeePerGas. */
export const cannotPay = (error: unknown): boolean => /insufficient funds|insufficient balance/i.test(errorText(error))

/** The node was not reached or did not answer (as opposed to answering with an error). */
export function isTransportError(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false
  return Boolean(error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError || e instanceof WebSocketRequestError))
}

/** The node's own words (viem's `details`), on one line (`errorLine`); never viem's whole message, which holds the request body and the RPC URL. */
export const nodeSays = (error: unknown): string => errorLine(error instanceof BaseError && error.details ? error.details : error)
