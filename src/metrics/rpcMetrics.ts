import { Counter, type Registry } from 'prom-client'
import type { RpcObserver } from './rpcTransport.ts'

/** Method names seen on the wire are bounded by this list; anything else counts as `other`. */
const knownMethod = /^(eth|net|web3|debug|anvil|evm|txpool)_[A-Za-z]{1,40}$/

/**
 * `order_relay_rpc_requests_total` and `order_relay_rpc_errors_total`, by JSON-RPC method.
 * Counted in plain numbers per request and handed to prom-client at scrape time (as the
 * HTTP answers are, answerCounts.ts): a relayer makes a few calls an order, and
 * prom-client's label validation and hashing on each cost more than the count itself.
 */
export function createRpcMetrics(registry: Registry, extra?: RpcObserver): RpcObserver {
  const requested = new Map<string, number>()
  const failed = new Map<string, number>()
  const byMethod = (counts: Map<string, number>) =>
    function collect(this: Counter<'method'>) {
      this.reset()
      for (const [method, count] of counts) this.inc({ method }, count)
    }
  new Counter({ name: 'order_relay_rpc_requests_total', help: 'JSON-RPC requests sent to the node, by method.', labelNames: ['method'], registers: [registry], collect: byMethod(requested) })
  new Counter({ name: 'order_relay_rpc_errors_total', help: 'JSON-RPC requests that failed (after retries), by method.', labelNames: ['method'], registers: [registry], collect: byMethod(failed) })
  const count = (counts: Map<string, number>, method: string) => {
    const label = knownMethod.test(method) ? method : 'other'
    counts.set(label, (counts.get(label) ?? 0) + 1)
  }
  return {
    request(method, params) {
      count(requested, method)
      extra?.request(method, params)
    },
    error(method) {
      count(failed, method)
      extra?.error(method)
    },
    result(method, params, result) {
      extra?.result?.(method, params, result)
    },
  }
}
