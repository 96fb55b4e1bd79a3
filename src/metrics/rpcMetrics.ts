import { Counter, type Registry } from 'prom-client'
import type { RpcObserver } from './rpcTransport.ts'

/** Method names seen on the wire are bounded by this list; anything else counts as `other`. */
const knownMethod = /^(eth|net|web3|debug|anvil|evm|txpool)_[A-Za-z]{1,40}$/

/** `order_relay_rpc_requests_total` and `order_relay_rpc_errors_total`, by JSON-RPC method. */
export function createRpcMetrics(registry: Registry, extra?: RpcObserver): RpcObserver {
  const requests = new Counter({ name: 'order_relay_rpc_requests_total', help: 'JSON-RPC requests sent to the node, by method.', labelNames: ['method'], registers: [registry] })
  const errors = new Counter({ name: 'order_relay_rpc_errors_total', help: 'JSON-RPC requests that failed (after retries), by method.', labelNames: ['method'], registers: [registry] })
  const label = (method: string) => (knownMethod.test(method) ? method : 'other')
  return {
    request(method, params) {
      requests.inc({ method: label(method) })
      extra?.request(method, params)
    },
    error(method) {
      errors.inc({ method: label(method) })
      extra?.error(method)
    },
    result(method, params, result) {
      extra?.result?.(method, params, result)
    },
  }
}
