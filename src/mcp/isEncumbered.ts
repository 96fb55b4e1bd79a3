import { type Address, BlockNotFoundError, type Hex, type PublicClient } from 'viem'
import { decodeIsEncumbered, isEncumberedRequest } from './call.ts'
import { McpError, withRpc } from './errors.ts'
import { isEncumberedSignature, type IsEncumberedOutput } from './receipt.ts'

export type ReadIsEncumberedParameters = {
  /** The chain the configuration names; the node must serve it. */
  chainId: number
  /** Only used to name the node in errors (by its origin). */
  rpcUrl: string
  registry: Address
  lienId: Hex
  /** The block to read at; the latest when absent. */
  blockNumber?: bigint | undefined
}

export type ReadIsEncumberedReturnType = IsEncumberedOutput

/** McpError codes: WRONG_CHAIN, FUTURE_BLOCK, NO_REGISTRY, NEEDS_ARCHIVE_NODE, RPC_UNREACHABLE, RPC_ERROR. */
export type ReadIsEncumberedErrorType = McpError

/**
 * Reads `isEncumbered(lienId)` on the LienRegistry at one pinned block and returns
 * the answer with a receipt that replays it: the block is read first (the latest
 * when no number is given), then the call runs at that block's hash (EIP-1898
 * `{blockHash, requireCanonical: true}`), so answer and receipt name the same state.
 *
 * @example
 * import { createPublicClient, http } from 'viem'
 * import { readIsEncumbered } from 'order-relay/mcp'
 * const client = createPublicClient({ transport: http(rpcUrl) })
 * const { encumbered, receipt } = await readIsEncumbered(client, { chainId, rpcUrl, registry, lienId })
 */
export async function readIsEncumbered(client: PublicClient, parameters: ReadIsEncumberedParameters): Promise<ReadIsEncumberedReturnType> {
  const { chainId, rpcUrl, registry, lienId, blockNumber } = parameters
  const rpc = <T>(doing: string, run: () => Promise<T>) => withRpc(rpcUrl, doing, run)

  const nodeChainId = await rpc('reading eth_chainId', () => client.getChainId())
  if (nodeChainId !== chainId) {
    throw new McpError('WRONG_CHAIN', `the RPC serves chain ${nodeChainId}, but the configuration names chain ${chainId}`)
  }

  const block = await rpc('reading the block', async () => {
    if (blockNumber === undefined) return client.getBlock({ blockTag: 'latest' })
    try {
      return await client.getBlock({ blockNumber })
    } catch (error) {
      if (!(error instanceof BlockNotFoundError)) throw error
      const latest = await client.getBlockNumber({ cacheTime: 0 })
      if (blockNumber > latest) throw new McpError('FUTURE_BLOCK', `block ${blockNumber} is in the future: the chain's latest block is ${latest}`)
      throw new McpError('RPC_ERROR', `the RPC has no block ${blockNumber} (latest ${latest})`)
    }
  })
  if (block.hash === null || block.number === null) throw new McpError('RPC_ERROR', 'the RPC answered a pending block')

  const request = isEncumberedRequest(registry, lienId)
  const result = await rpc(`calling isEncumbered at block ${block.number}`, () =>
    client.request({ method: 'eth_call', params: [request, { blockHash: block.hash as Hex, requireCanonical: true }] }),
  )
  const encumbered = decodeIsEncumbered(result)
  if (encumbered === undefined) {
    throw new McpError(
      'NO_REGISTRY',
      `no LienRegistry answers at ${registry} on chain ${chainId} at block ${block.number} (the call returned ${result.length > 66 ? `${result.slice(0, 66)}…` : result}): check the registry address and that it was deployed by then`,
    )
  }

  return {
    encumbered,
    receipt: {
      chainId: nodeChainId,
      registry,
      blockNumber: block.number.toString(),
      blockHash: block.hash,
      request,
      result,
      decoded: { function: isEncumberedSignature, lienId, encumbered },
    },
  }
}
