import { freePort } from '../../src/shared/index.ts'

type JsonRpcRequest = { jsonrpc: '2.0'; id: number | string | null; method: string; params?: unknown[] }

export type RpcProxyOptions = {
  /** Refuse `eth_getLogs` over more blocks than this, as a hosted node does. */
  maxLogRange?: number
}

/**
 * A small JSON-RPC proxy in front of anvil: it can refuse `eth_getLogs` ranges over
 * N blocks, refuse every `eth_getLogs`, or go down entirely (the port closes) and
 * come back on the same port. Counts what it forwards.
 */
export async function startRpcProxy(upstream: string, options: RpcProxyOptions = {}) {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const state: { maxLogRange: number | undefined; refuseLogs: boolean; afterLogs: (() => Promise<void>) | undefined } = {
    maxLogRange: options.maxLogRange,
    refuseLogs: false,
    /** Runs once, after the next eth_getLogs is answered upstream and before the answer is returned (a reorg mid-tick). */
    afterLogs: undefined,
  }
  /** Every eth_getLogs asked for: block span and whether it was refused. */
  const logRequests: { from: bigint; to: bigint; refused: boolean }[] = []
  /** Every JSON-RPC method asked for, in order (a batch counts each of its calls). */
  const methods: string[] = []

  async function answer(request: JsonRpcRequest): Promise<unknown> {
    methods.push(request.method)
    if (request.method === 'eth_getLogs') {
      const filter = (request.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string }
      const from = BigInt(filter.fromBlock ?? '0x0')
      const to = BigInt(filter.toBlock ?? '0x0')
      const tooWide = state.maxLogRange !== undefined && to - from + 1n > BigInt(state.maxLogRange)
      logRequests.push({ from, to, refused: tooWide || state.refuseLogs })
      if (state.refuseLogs) return { jsonrpc: '2.0', id: request.id, error: { code: -32005, message: 'query returned more than 10000 results' } }
      if (tooWide) {
        return { jsonrpc: '2.0', id: request.id, error: { code: -32600, message: `block range too large: at most ${state.maxLogRange} blocks` } }
      }
    }
    const response = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) })
    const answered = await response.json()
    const hook = request.method === 'eth_getLogs' ? state.afterLogs : undefined
    if (hook) {
      state.afterLogs = undefined
      await hook()
    }
    return answered
  }

  const serve = () =>
    Bun.serve({
      hostname: '127.0.0.1',
      port,
      async fetch(request) {
        const body = (await request.json()) as JsonRpcRequest | JsonRpcRequest[]
        const result = Array.isArray(body) ? await Promise.all(body.map(answer)) : await answer(body)
        return Response.json(result)
      },
    })
  let server: ReturnType<typeof serve> | undefined = serve()

  return {
    url,
    state,
    logRequests,
    methods,
    /** Closes the port: every request fails as a connection error. */
    down() {
      server?.stop(true)
      server = undefined
    },
    /** Listens again on the same port. */
    up() {
      server ??= serve()
    },
    stop() {
      server?.stop(true)
      server = undefined
    },
  }
}

export type RpcProxy = Awaited<ReturnType<typeof startRpcProxy>>
