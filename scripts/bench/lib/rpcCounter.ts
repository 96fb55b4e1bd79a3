import { freePort } from '../../../src/shared/index.ts'

/**
 * A counting JSON-RPC proxy on loopback for `--count-rpc` runs: every HTTP request
 * is forwarded to `target` as is, and each method in it (single call or batch) is
 * counted, and so is the request itself (`(HTTP requests)`). It costs CPU on the same cores, so throughput from such a run is not a
 * measurement; the counts tell where a side's chain work goes (calls per order by
 * method). WebSocket subscriptions go straight to the node and are not counted.
 */
export async function startRpcCounter(target: string) {
  let counts = new Map<string, number>()
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: await freePort(),
    async fetch(request) {
      const body = await request.text()
      // The HTTP requests themselves: each costs its sender a round trip, batch or not.
      counts.set('(HTTP requests)', (counts.get('(HTTP requests)') ?? 0) + 1)
      try {
        const parsed = JSON.parse(body) as { method?: unknown } | { method?: unknown }[]
        for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
          const method = typeof call?.method === 'string' ? call.method : '?'
          counts.set(method, (counts.get(method) ?? 0) + 1)
        }
      } catch {
        counts.set('(not JSON)', (counts.get('(not JSON)') ?? 0) + 1)
      }
      const answer = await fetch(target, { method: request.method, headers: { 'content-type': 'application/json' }, body: request.method === 'GET' ? undefined : body })
      return new Response(await answer.arrayBuffer(), { status: answer.status, headers: { 'content-type': 'application/json' } })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    /** Starts counting afresh (at the start of the timed part). */
    reset() {
      counts = new Map()
    },
    /** Calls per order by method, most first, e.g. `eth_call 1, eth_sendRawTransaction 1, eth_estimateGas 1 in all`. */
    perOrder(orders: number): string {
      return [...counts.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([method, count]) => (count / orders >= 0.01 ? `${method} ${Math.round((count / orders) * 100) / 100}` : `${method} ${count} in all`))
        .join(', ')
    },
    stop() {
      server.stop(true)
    },
  }
}
