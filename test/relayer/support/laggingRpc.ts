import { toHex } from 'viem'

type Call = { jsonrpc?: string; id?: unknown; method: string; params?: unknown[] }

/**
 * A load balancer over two backends of one chain, one of them `lag` blocks behind, picked
 * at random (seeded) per HTTP request (a JSON-RPC batch goes whole to one of them, as load
 * balancers do). The lagging backend is anvil seen `lag` blocks in the past: its head is `lag`
 * lower, it has no block, receipt or tx above that head, it answers nonces and calls as of
 * its head, and a block number it does not have is "header not found".
 */
export function startLaggingRpc(upstream: string, lag: number, seed = 0x1a9) {
  let state = seed
  // A small linear congruential generator: the same picks every run.
  const pick = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) >> 16) % 2 === 1
  const forward = async (body: unknown) => (await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<unknown>
  // The node's result or error alone (its id is replaced by the caller's).
  const real = async (call: Call) => {
    const { result, error } = (await forward({ jsonrpc: '2.0', id: 1, method: call.method, params: call.params ?? [] })) as { result?: unknown; error?: unknown }
    return error === undefined ? { result } : { error }
  }

  async function lagged(call: Call): Promise<unknown> {
    const answer = (result: unknown) => ({ jsonrpc: '2.0', id: call.id, result })
    const notFound = { jsonrpc: '2.0', id: call.id, error: { code: -32000, message: 'header not found' } }
    const head = BigInt((await real({ method: 'eth_blockNumber' })).result as string) - BigInt(lag)
    const params = [...(call.params ?? [])]
    const blockParam = (index: number) => {
      const tag = params[index]
      if (tag === 'latest' || tag === 'pending' || tag === undefined) return head
      if (typeof tag === 'string' && tag.startsWith('0x')) return BigInt(tag)
      return head
    }
    switch (call.method) {
      case 'eth_blockNumber':
        return answer(toHex(head))
      case 'eth_getBlockByNumber': {
        if (blockParam(0) > head) return answer(null)
        params[0] = toHex(blockParam(0))
        return answer((await real({ method: call.method, params })).result)
      }
      case 'eth_getTransactionCount':
      case 'eth_getBalance':
      case 'eth_call': {
        const index = call.method === 'eth_call' ? 1 : 1
        if (blockParam(index) > head) return notFound
        params[index] = toHex(blockParam(index))
        return { jsonrpc: '2.0', id: call.id, ...(await real({ method: call.method, params })) }
      }
      case 'eth_getTransactionReceipt':
      case 'eth_getTransactionByHash': {
        const result = (await real(call)).result as { blockNumber?: string | null } | null
        if (result?.blockNumber && BigInt(result.blockNumber) > head) return answer(null)
        return answer(result)
      }
      default:
        return { jsonrpc: '2.0', id: call.id, ...(await real(call)) }
    }
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const body = (await request.json()) as Call | Call[]
      const lagging = pick()
      if (!lagging) return Response.json(await forward(body))
      return Response.json(Array.isArray(body) ? await Promise.all(body.map(lagged)) : await lagged(body))
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    stop() {
      server.stop(true)
    },
  }
}
