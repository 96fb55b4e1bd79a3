/**
 * A JSON-RPC proxy in front of anvil that can be told to fail chosen methods:
 * `refuse` answers HTTP 503 without forwarding; `loseAnswer` forwards the call (the
 * node acts on it) and then answers 503, as when a connection drops mid-call;
 * `unsupported` answers JSON-RPC "method not found", as a node without the method does.
 * `calls` keeps every single call's method and params; `refuseWhen` answers a JSON-RPC
 * error to the calls it matches, alone or inside a batch (a node refusing a parameter
 * it does not support, or one tx); `refuseBatches` refuses every batch request;
 * `errorAfterForwarding` forwards a method's calls (the node acts on them) and answers each
 * with a JSON-RPC error, as a provider that timed out waiting for its backend does.
 */
export function startFlakyRpc(upstream: string) {
  const failing = new Map<string, 'refuse' | 'loseAnswer' | 'unsupported'>()
  const failNext = new Map<string, number>()
  const seen: string[] = []
  const calls: RpcCall[] = []
  let refusing: { match: (call: RpcCall) => boolean; message: string } | undefined
  let refusingBatches: string | undefined
  const erroringAfter = new Map<string, { code: number; message: string }>()
  const batches: number[] = []
  const sendBatches: number[] = []
  const batchMethods: string[][] = []
  const callOf = (call: unknown): RpcCall => ({ method: (call as { method: string }).method, params: (call as { params?: unknown[] }).params ?? [] })
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const text = await request.text()
      const body = JSON.parse(text) as { method: string } | { method: string }[]
      const methods = (Array.isArray(body) ? body : [body]).map((call) => call.method)
      seen.push(...methods)
      for (const call of Array.isArray(body) ? body : [body]) calls.push({ method: call.method, params: (call as { params?: unknown[] }).params ?? [] })
      if (Array.isArray(body)) batches.push(body.length)
      if (Array.isArray(body)) batchMethods.push(methods)
      if (Array.isArray(body) && methods.includes('eth_sendRawTransaction')) sendBatches.push(body.length)
      if (Array.isArray(body) && refusingBatches !== undefined) {
        return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: refusingBatches } })
      }
      if (refusing && !Array.isArray(body) && refusing.match(calls.at(-1)!)) {
        const { id } = body as { id?: unknown }
        return Response.json({ jsonrpc: '2.0', id, error: { code: -32602, message: refusing.message } })
      }
      if (refusing && Array.isArray(body) && body.some((call) => refusing!.match(callOf(call)))) {
        // Each call of the batch answered on its own: the matching ones refused, the rest forwarded as a batch.
        const rule = refusing
        const forwarded = body.filter((call) => !rule.match(callOf(call)))
        const answers = forwarded.length === 0 ? [] : ((await (await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(forwarded) })).json()) as { id: unknown }[])
        const refused = body.filter((call) => rule.match(callOf(call))).map((call) => ({ jsonrpc: '2.0', id: (call as { id?: unknown }).id, error: { code: -32000, message: rule.message } }))
        return Response.json([...answers, ...refused])
      }
      if (methods.some((method) => erroringAfter.has(method))) {
        // Forwarded whole: the node acts on every call; the chosen methods' answers are replaced by the error.
        const answer = await (await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text })).json()
        const replace = (call: { method: string; id?: unknown }, result: unknown) => {
          const error = erroringAfter.get(call.method)
          return error ? { jsonrpc: '2.0', id: call.id, error } : result
        }
        if (!Array.isArray(body)) return Response.json(replace(body as { method: string; id?: unknown }, answer))
        const byId = new Map((answer as { id: unknown }[]).map((each) => [each.id, each]))
        return Response.json(body.map((call) => replace(call as { method: string; id?: unknown }, byId.get((call as { id?: unknown }).id))))
      }
      let mode = methods.map((method) => failing.get(method)).find(Boolean)
      for (const method of methods) {
        const left = failNext.get(method) ?? 0
        if (left > 0) {
          failNext.set(method, left - 1)
          mode = 'refuse'
        }
      }
      if (mode === 'refuse') return new Response('upstream unavailable', { status: 503 })
      if (mode === 'unsupported' && Array.isArray(body)) {
        // Each call of the batch answered on its own: the unsupported ones "method not found", the rest forwarded.
        const missing = (call: { method: string }) => failing.get(call.method) === 'unsupported'
        const forwarded = body.filter((call) => !missing(call))
        const answers = forwarded.length === 0 ? [] : ((await (await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(forwarded) })).json()) as { id: unknown }[])
        const refused = body.filter(missing).map((call) => ({ jsonrpc: '2.0', id: (call as { id?: unknown }).id, error: { code: -32601, message: `the method ${call.method} does not exist/is not available` } }))
        return Response.json([...answers, ...refused])
      }
      if (mode === 'unsupported' && !Array.isArray(body)) {
        const { id } = body as { id?: unknown }
        return Response.json({ jsonrpc: '2.0', id, error: { code: -32601, message: `the method ${methods[0]} does not exist/is not available` } })
      }
      const answer = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text })
      const answerText = await answer.text()
      if (mode === 'loseAnswer') return new Response('upstream unavailable', { status: 503 })
      return new Response(answerText, { status: answer.status, headers: { 'content-type': 'application/json' } })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    /** Methods called through the proxy, in order. */
    seen,
    /** Every call through the proxy with its params, in order. */
    calls,
    /** The size of every JSON-RPC batch request, in order. */
    batches,
    /** The size of every JSON-RPC batch request that carried signed txs, in order (the receipt watcher batches too). */
    sendBatches,
    /** The methods of every JSON-RPC batch request, in order. */
    batchMethods,
    /** Answers the single calls (and the calls inside a batch) it matches with a JSON-RPC error. */
    refuseWhen(match: (call: RpcCall) => boolean, message: string) {
      refusing = { match, message }
    },
    /** Answers every batch request with one JSON-RPC error (code -32600), as a node that takes no batches. */
    refuseBatches(message: string) {
      refusingBatches = message
    },
    fail(method: string, mode: 'refuse' | 'loseAnswer' | 'unsupported' = 'refuse') {
      failing.set(method, mode)
    },
    /** Refuse the next `count` calls of `method`, then behave again. */
    failNext(method: string, count = 1) {
      failNext.set(method, count)
    },
    /** Forwards every call of `method` and answers each with this JSON-RPC error (HTTP 200). */
    errorAfterForwarding(method: string, error: { code: number; message: string }) {
      erroringAfter.set(method, error)
    },
    heal() {
      erroringAfter.clear()
      failing.clear()
      failNext.clear()
      refusing = undefined
      refusingBatches = undefined
    },
    stop() {
      server.stop(true)
    },
  }
}

export type RpcCall = { method: string; params: unknown[] }
