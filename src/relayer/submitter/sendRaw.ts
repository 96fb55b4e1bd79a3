import { BaseError, type Hex, type PublicClient } from 'viem'
import { errorText, isTransportError } from '../rpcErrors.ts'

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
    return classify(client, error, hash)
  }
}

/**
 * Every tx at once, through a client whose transport puts concurrent requests in one
 * JSON-RPC batch (in this order, so in nonce order), each answered and classified on
 * its own as `sendRaw` does. Undefined when the node refused the batch as a whole
 * (no batches, or too large a one): none of it reached a pool.
 */
export async function sendRawBatch(client: PublicClient, txs: ReadonlyArray<{ raw: Hex; hash: Hex }>): Promise<SendOutcome[] | undefined> {
  const answers = await Promise.allSettled(txs.map(({ raw }) => client.request({ method: 'eth_sendRawTransaction', params: [raw] }, { retryCount: 0 })))
  const errors = answers.flatMap((answer) => (answer.status === 'rejected' ? [answer.reason as unknown] : []))
  if (txs.length > 1 && errors.length === txs.length && refusedAsBatch(errors)) return undefined
  return Promise.all(answers.map((answer, i) => (answer.status === 'fulfilled' ? { kind: 'accepted' as const } : classify(client, answer.reason, txs[i]!.hash))))
}

/** The same answer to every call of the batch, and one a node gives to a batch it will not take. */
function refusedAsBatch(errors: readonly unknown[]): boolean {
  const answers = errors.map(nodeAnswer)
  const first = answers[0]!
  if (answers.some((each) => each.code !== first.code || each.status !== first.status || each.details !== first.details)) return false
  return first.code === -32600 || first.code === -32700 || [400, 405, 413, 414, 431].includes(first.status ?? 0) || /batch/i.test(first.details)
}

/** What the node said (code, HTTP status, its words), without the request body viem puts in the message. */
function nodeAnswer(error: unknown): { code?: number; status?: number; details: string } {
  const answer: { code?: number; status?: number; details: string } = { details: error instanceof BaseError ? error.details : String(error) }
  if (error instanceof BaseError) {
    error.walk((e) => {
      const { code, status } = e as { code?: unknown; status?: unknown }
      if (typeof code === 'number' && answer.code === undefined) answer.code = code
      if (typeof status === 'number' && answer.status === undefined) answer.status = status
      return false
    })
  }
  return answer
}

async function classify(client: PublicClient, error: unknown, hash: Hex): Promise<SendOutcome> {
  const text = errorText(error)
  if (alreadyKnown.test(text)) return { kind: 'accepted' }
  if (isTransportError(error)) return (await nodeKnows(client, hash)) ? { kind: 'accepted' } : { kind: 'unanswered', error }
  if (noFunds.test(text)) return { kind: 'noFunds', error }
  if (nonceTaken.test(text)) return (await nodeKnows(client, hash)) ? { kind: 'accepted' } : { kind: 'nonceTaken', error }
  if (underpriced.test(text)) return { kind: 'underpriced', error }
  return { kind: 'refused', error }
}
