import * as v from 'valibot'
import { OrderRelayError } from '../../errors/index.ts'

/**
 * TLS to the signer, PEM contents (not paths): a client certificate and its key (mTLS;
 * both or neither), and the CA the signer's certificate is checked against in place of
 * the system's.
 */
export type RemoteSignerTls = { cert?: string; key?: string; ca?: string }

export type JsonRpcConnection = {
  url: string
  /** Sent as `Authorization: Bearer <token>`; never part of a message. */
  token?: string | undefined
  tls?: RemoteSignerTls | undefined
  timeoutMs: number
}

/**
 * Why a JSON-RPC call got no result: the signer could not be reached or did not answer
 * in time, answered with an HTTP error status, with a JSON-RPC error, or with something
 * that is not a JSON-RPC answer. `detail` is text from the wire, already stripped of the
 * token; the caller turns this into a SignerError with the URL redacted.
 */
export class JsonRpcFailure extends OrderRelayError<'SIGNER_RPC'> {
  override name = 'JsonRpcFailure'
  constructor(
    readonly kind: 'unreachable' | 'timeout' | 'http' | 'rpc' | 'malformed',
    readonly detail: string,
    readonly extra: { status?: number; rpcCode?: number; cause?: unknown } = {},
  ) {
    super('SIGNER_RPC', detail, { cause: extra.cause })
  }
}

// The error form first: `result: unknown` would also match an answer without a result.
const answerSchema = v.union([
  v.object({ error: v.object({ code: v.number(), message: v.string() }) }),
  v.object({ result: v.unknown() }),
])

/** JSON-RPC's "method not found": the signer speaks another dialect (Clef's `account_*`). */
export const methodNotFound = -32601

/** Answers longer than this are not a signature or an account list. */
const maxAnswerBytes = 1 << 20

/**
 * One JSON-RPC 2.0 call over HTTP(S) with Bun's fetch: the bearer token in the header,
 * the client certificate in `tls`, the whole call bounded by `timeoutMs`.
 * @throws JsonRpcFailure
 *
 * @example
 * const accounts = await jsonRpcCall({ url, timeoutMs: 5000 }, 'eth_accounts', [])
 */
export async function jsonRpcCall(connection: JsonRpcConnection, method: string, params: unknown[]): Promise<unknown> {
  const scrub = (text: string) => (connection.token ? text.split(connection.token).join('***') : text).slice(0, 300)
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
  if (connection.token) headers.authorization = `Bearer ${connection.token}`
  const signal = AbortSignal.timeout(connection.timeoutMs)
  let response: Response
  let body: string
  try {
    response = await fetch(connection.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal,
      redirect: 'error',
      ...(connection.tls ? { tls: connection.tls } : {}),
    })
    body = await response.text()
  } catch (error) {
    if (signal.aborted) throw new JsonRpcFailure('timeout', `no answer within ${connection.timeoutMs} ms`, { cause: error })
    throw new JsonRpcFailure('unreachable', scrub(error instanceof Error ? error.message : String(error)))
  }
  if (!response.ok) throw new JsonRpcFailure('http', `HTTP ${response.status}`, { status: response.status })
  if (body.length > maxAnswerBytes) throw new JsonRpcFailure('malformed', `an answer of ${body.length} bytes`)
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    throw new JsonRpcFailure('malformed', 'an answer that is not JSON')
  }
  const answer = v.safeParse(answerSchema, json)
  if (!answer.success) throw new JsonRpcFailure('malformed', 'an answer that is not a JSON-RPC answer')
  if ('error' in answer.output) {
    const { code, message } = answer.output.error
    throw new JsonRpcFailure('rpc', `JSON-RPC error ${code}: ${scrub(message)}`, { rpcCode: code })
  }
  return answer.output.result
}
