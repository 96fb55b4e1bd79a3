import { BaseError, type Hex, type PublicClient } from 'viem'
import { errorText, isTransportError } from '../rpcErrors.ts'

/**
 * What a node did with one signed tx:
 * - `accepted`: it took it, said "already known" for this very hash, or the hash
 *   was found after an error (a lost answer);
 * - `unanswered`: no answer, or an answer that proves nothing (an error this list does
 *   not know, such as a provider's `-32603 upstream timeout` after it forwarded the tx),
 *   and the hash could not be found: it may be pooled. The slot stays; the nonce keeper
 *   resolves it by hash and nonce (sends it again as signed if the node lacks it);
 * - `noFunds` / `nonceTaken` / `underpriced` / `refused`: the node answered with a
 *   refusal that proves it does not hold this tx (`refusalKind` lists them,
 *   docs/relayer-safety.md), so its nonce is free again.
 */
export type SendOutcome =
  | { kind: 'accepted' }
  | { kind: 'unanswered'; error: unknown }
  | { kind: 'noFunds' | 'nonceTaken' | 'underpriced' | 'refused'; error: unknown }

export const underpriced = /underpriced|less than (the )?block base fee|lower than the block base fee|fee cap .*(too low|less than)|max fee per gas less than|fee too low/i
const alreadyKnown = /already known|already imported|known transaction/i
const nonceTaken = /nonce too low|nonce has already been used|invalid nonce|replacement transaction underpriced|replacement fee too low/i
const noFunds = /insufficient funds|insufficient balance/i
/**
 * Refusals that prove the node did not take the tx, beside the three above: the tx is
 * invalid as signed (its gas, its size, its type, its chain, its signature) or over the
 * node's own fee cap.
 */
const provenRefusal =
  /intrinsic gas too low|gas limit reached|exceeds block gas limit|gas limit exceeds|oversized data|transaction size|tx fee .* exceeds the configured cap|exceeds the configured cap|transaction type not supported|tx type not supported|invalid chain ?id|invalid sender|invalid signature|max priority fee per gas higher than max fee per gas|tip higher than fee cap/i

/**
 * The kind of refusal a send error's words prove (`unknown`: they prove nothing, the tx
 * may have been taken). Underpriced is checked after nonce-taken, whose "replacement
 * transaction underpriced" is about another tx at the nonce.
 */
export function classifySendError(text: string): 'noFunds' | 'nonceTaken' | 'underpriced' | 'refused' | 'unknown' {
  if (noFunds.test(text)) return 'noFunds'
  if (nonceTaken.test(text)) return 'nonceTaken'
  if (underpriced.test(text)) return 'underpriced'
  if (provenRefusal.test(text)) return 'refused'
  return 'unknown'
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
  const kind = isTransportError(error) ? 'unknown' : classifySendError(text)
  if (kind === 'noFunds' || kind === 'underpriced' || kind === 'refused') return { kind, error }
  // The nonce is taken: by this very tx (a send that reached the node before), or another.
  // A look-up that gets no answer proves neither: the tx may be pooled.
  const known = await nodeKnows(client, hash)
  if (known) return { kind: 'accepted' }
  if (kind === 'nonceTaken' && known === false) return { kind: 'nonceTaken', error }
  return { kind: 'unanswered', error }
}
