/**
 * A JSON-RPC proxy in front of anvil that can be told to fail chosen methods:
 * `refuse` answers HTTP 503 without forwarding; `loseAnswer` forwards the call (the
 * node acts on it) and then answers 503, as when a connection drops mid-call.
 */
export function startFlakyRpc(upstream: string) {
  const failing = new Map<string, 'refuse' | 'loseAnswer'>()
  const seen: string[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const text = await request.text()
      const body = JSON.parse(text) as { method: string } | { method: string }[]
      const methods = (Array.isArray(body) ? body : [body]).map((call) => call.method)
      seen.push(...methods)
      const mode = methods.map((method) => failing.get(method)).find(Boolean)
      if (mode === 'refuse') return new Response('upstream unavailable', { status: 503 })
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
    fail(method: string, mode: 'refuse' | 'loseAnswer' = 'refuse') {
      failing.set(method, mode)
    },
    heal() {
      failing.clear()
    },
    stop() {
      server.stop(true)
    },
  }
}
