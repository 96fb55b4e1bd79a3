// A JSON-RPC proxy in front of a real signer (anvil) for the remote signer's tests: it
// may require a bearer token, a client certificate (its TLS options), or change what
// passes through (`handle`) to play a faulty, slow or Clef-speaking signer.
import type { Server } from 'bun'

export type RpcCall = { method: string; params: unknown[] }
/** What the proxy answers a call with: the real signer's `forward()`, or a body of its own. */
export type ProxyHandler = (call: RpcCall, forward: (call?: RpcCall) => Promise<RpcAnswer>) => Promise<RpcAnswer | Response>
export type RpcAnswer = { jsonrpc: '2.0'; id: unknown; result?: unknown; error?: { code: number; message: string } }

export type SignerProxy = {
  url: string
  /** Every call that reached the proxy, in order. */
  calls: RpcCall[]
  /** Every Authorization header the proxy saw. */
  authorizations: (string | null)[]
  handle: ProxyHandler | undefined
  stop(): Promise<void>
}

export function startSignerProxy(
  target: string,
  options: { token?: string; tls?: { cert: string; key: string; ca: string }; handle?: ProxyHandler } = {},
): SignerProxy {
  const calls: RpcCall[] = []
  const authorizations: (string | null)[] = []
  const proxy: SignerProxy = {
    url: '',
    calls,
    authorizations,
    handle: options.handle,
    stop: async () => server.stop(true),
  }
  const server: Server<undefined> = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    ...(options.tls ? { tls: { cert: options.tls.cert, key: options.tls.key, ca: options.tls.ca, requestCert: true, rejectUnauthorized: true } } : {}),
    async fetch(request) {
      authorizations.push(request.headers.get('authorization'))
      if (options.token !== undefined && request.headers.get('authorization') !== `Bearer ${options.token}`) {
        return new Response('unauthorized', { status: 401 })
      }
      const body = (await request.json()) as { id: unknown; method: string; params?: unknown[] }
      const call = { method: body.method, params: body.params ?? [] }
      calls.push(call)
      const forward = async (sent: RpcCall = call): Promise<RpcAnswer> => {
        const response = await fetch(target, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: body.id, method: sent.method, params: sent.params }),
        })
        return (await response.json()) as RpcAnswer
      }
      const answer = proxy.handle ? await proxy.handle(call, forward) : await forward()
      return answer instanceof Response ? answer : Response.json(answer)
    },
  })
  proxy.url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${server.port}`
  return proxy
}
