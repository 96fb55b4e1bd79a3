import type { Transport } from 'viem'

/** What an RPC observer is told about each JSON-RPC request the client makes. */
export type RpcObserver = {
  /** Once per request, before it is sent (retries inside the transport are not counted). */
  request(method: string, params: unknown): void
  /** The request failed after the transport's own retries. */
  error(method: string): void
  /** The request answered. */
  result?(method: string, params: unknown, result: unknown): void
}

/**
 * Wraps a viem transport so every request passes an observer: the boundary where
 * the metrics count calls and errors by method and see the receipts and log ranges,
 * without touching the code that makes the calls.
 *
 * @example
 * transport: observeTransport(http(rpcUrl), metrics.rpc)
 */
export function observeTransport<T extends Transport>(transport: T, observer: RpcObserver): T {
  const observed = ((parameters: Parameters<T>[0]) => {
    const inner = transport(parameters)
    const request = (async (args: { method: string; params?: unknown }, options?: unknown) => {
      observer.request(args.method, args.params)
      try {
        const result = await (inner.request as (a: unknown, o?: unknown) => Promise<unknown>)(args, options)
        observer.result?.(args.method, args.params, result)
        return result
      } catch (error) {
        observer.error(args.method)
        throw error
      }
    }) as typeof inner.request
    return { ...inner, request }
  }) as T
  return observed
}
