import { BaseError, type Hex, HttpRequestError, type PublicClient, TimeoutError, WebSocketRequestError } from 'viem'
import { errorText } from './errorText.ts'

/**
 * What a node did with one signed tx:
 * - `accepted`: it took it, said "already known" for this very hash, or the hash
 *   was found after an error (a lost answer);
 * - `unanswered`: no answer and the hash could not be found: it may or may not be
 *   pooled (the nonce keeper sends it again as signed if the node lacks it);
 * - `noFunds` / `nonceTaken` / `underpriced` / `refused`: the node answered with a
 *   refusal and does not hold this hash, so its nonce is free again.
 */
export type SendOutcome =
  | { kind: 'accepted' }
  | { kind: 'unanswered'; error: unknown }
  | { kind: 'noFunds' | 'nonceTaken' | 'underpriced' | 'refused'; error: unknown }

export const underpriced = /underpriced|less than (the )?block base fee|lower than the block base fee|fee cap .*(too low|less than)|max fee per gas less than|fee too low/i
const alreadyKnown = /already known|already imported|known transaction/i
const nonceTaken = /nonce too low|nonce has already been used|invalid nonce|replacement transaction underpriced|replacement fee too low/i
const noFunds = /insufficient funds|insufficient balance/i

/** The node was not reached or did not answer (as opposed to answering with an error). */
export function isTransportError(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false
  return Boolean(error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError || e instanceof WebSocketRequestError))
}

/** Whether the node knows the hash (pooled or mined); undefined when it could not be asked. */
export async function nodeKnows(client: PublicClient, hash: Hex): Promise<boolean | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return (await client.request({ method: 'eth_getTransactionByHash', params: [hash] }, { retryCount: 0 })) !== null
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50 * (attempt + 1)))
    }
  }
  return undefined
}

/**
 * `eth_sendRawTransaction` exactly once (no transport retry: a retry of a send that
 * reached the node is answered "already known" or "nonce too low"), then, after any
 * error, the hash is looked up before the caller signs anything again.
 */
export async function sendRaw(client: PublicClient, raw: Hex, hash: Hex): Promise<SendOutcome> {
  try {
    await client.request({ method: 'eth_sendRawTransaction', params: [raw] }, { retryCount: 0 })
    return { kind: 'accepted' }
  } catch (error) {
    const text = errorText(error)
    if (alreadyKnown.test(text)) return { kind: 'accepted' }
    if (isTransportError(error)) return (await nodeKnows(client, hash)) ? { kind: 'accepted' } : { kind: 'unanswered', error }
    if (noFunds.test(text)) return { kind: 'noFunds', error }
    if (nonceTaken.test(text)) return (await nodeKnows(client, hash)) ? { kind: 'accepted' } : { kind: 'nonceTaken', error }
    if (underpriced.test(text)) return { kind: 'underpriced', error }
    return { kind: 'refused', error }
  }
}
