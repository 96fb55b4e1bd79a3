/** A JSON-RPC error answered by the node. */
export class RpcError extends Error {
  override name = 'RpcError'
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message} (${code})`)
  }
}

export type RpcAnswer = { id: number; result?: unknown; error?: { code: number; message: string } }

let id = 0

/**
 * The leanest JSON-RPC client: one `fetch`, no formatting of the result. The
 * baselines use it so they measure the node, not a client library.
 */
export async function rpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
  })
  const answer = (await response.json()) as RpcAnswer
  if (answer.error) throw new RpcError(method, answer.error.code, answer.error.message)
  return answer.result as T
}

/** Many calls in one JSON-RPC batch; each call's answer in the calls' order, its result or the node's error. */
export async function rpcBatchAnswers(url: string, calls: ReadonlyArray<{ method: string; params: unknown[] }>): Promise<RpcAnswer[]> {
  const body = calls.map((call) => ({ jsonrpc: '2.0', id: ++id, method: call.method, params: call.params }))
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const answers = (await response.json()) as RpcAnswer[]
  return answers.sort((a, b) => a.id - b.id)
}

/** Many calls in one JSON-RPC batch; throws on the first error. */
export async function rpcBatch(url: string, calls: { method: string; params: unknown[] }[]): Promise<unknown[]> {
  const answers = await rpcBatchAnswers(url, calls)
  return answers.map((answer, index) => {
    if (answer.error) throw new RpcError(calls[index]?.method ?? '?', answer.error.code, answer.error.message)
    return answer.result
  })
}
