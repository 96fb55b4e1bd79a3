import { BaseError, type Hex, MethodNotFoundRpcError, MethodNotSupportedRpcError, type PublicClient } from 'viem'
import { errorLine, type Logger } from '../../shared/index.ts'

/** The node answered that it has no such method (not a transport failure, which is retried next look). */
export function isUnsupported(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false
  return Boolean(error.walk((e) => e instanceof MethodNotFoundRpcError || e instanceof MethodNotSupportedRpcError || (e as { code?: unknown }).code === -32601))
}

/**
 * How the receipt watcher and the nonce keeper read the chain: the requests that must
 * agree go together in one JSON-RPC batch through `batchClient` (a load balancer hands a
 * batch to one node), with one request each through `client` as the fallback. A node
 * that takes no batches fails every batched request while single calls work: after three
 * such failures in a row batching stops (an outage fails both).
 */
export function createChainReads(options: { client: PublicClient; batchClient?: PublicClient | undefined; logger: Logger }) {
  const { client, logger } = options
  const batchClient = options.batchClient ?? client
  // Batched reads that failed in a row while a single call worked; NaN once batching is off.
  let batchFailures = options.batchClient ? 0 : Number.NaN
  const batching = () => !Number.isNaN(batchFailures)

  /** `batched` through the batching client; should it fail, `single` through the plain one. */
  async function inBatch<T>(batched: (via: PublicClient) => Promise<T>, single: () => Promise<T>): Promise<T> {
    if (!batching()) return single()
    let failure: unknown
    try {
      const result = await batched(batchClient)
      batchFailures = 0
      return result
    } catch (error) {
      // A method the node does not have is not a batching problem: no second try.
      if (isUnsupported(error)) throw error
      failure = error
    }
    const result = await single()
    if (++batchFailures >= 3) {
      batchFailures = Number.NaN
      logger.info(`receipt watcher: the RPC failed a JSON-RPC batch three times while single calls worked (${errorLine(failure)}); looking without batches from now on`)
    }
    return result
  }

  return {
    client,
    batching,
    inBatch,
    /**
     * The head, then `address`'s nonce at that very block: a pair that agree on any node.
     * Not `latest` beside the head in one batch: a block can land between the two calls
     * (a batch is no snapshot), and a nonce read past the head would make the key's own
     * txs of the newer block look taken by another process.
     */
    async nonceAtHead(address: Hex): Promise<{ at: bigint; nonce: number }> {
      const at = await client.getBlockNumber({ cacheTime: 0 })
      return { at, nonce: await client.getTransactionCount({ address, blockNumber: at }) }
    },
  }
}

export type ChainReads = ReturnType<typeof createChainReads>
