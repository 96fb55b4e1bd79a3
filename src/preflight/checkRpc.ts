import type { PublicClient } from 'viem'
import { checkRpcChain, nodeSays } from '../relayer/index.ts'
import { ConfigError, createMemoryLogger, redactUrl, redactUrls } from '../shared/index.ts'
import { type CheckResult, fail, failFromMessage, pass } from './checkResult.ts'

/**
 * The RPC answers, and serves the configured chain (the relayer's own start check,
 * checkRpcChain, whose refusal names the variables). `prefix` says whose variables:
 * the relayer's or the indexer's. The URL is shown without credentials.
 */
export async function checkRpc(client: PublicClient, options: { name: string; rpcUrl: string; chainId: number; prefix: 'RELAYER' | 'INDEXER' }): Promise<CheckResult> {
  const { name, prefix, chainId } = options
  const shown = redactUrl(options.rpcUrl)
  try {
    await client.getChainId()
  } catch (error) {
    return fail(
      name,
      `${prefix}_RPC_URL ${shown} does not answer (${redactUrls(nodeSays(error))})`,
      `start the node or point ${prefix}_RPC_URL at a node of chain ${chainId} that answers JSON-RPC`,
    )
  }
  const logger = createMemoryLogger()
  try {
    await checkRpcChain(client, chainId, logger, prefix)
  } catch (error) {
    if (error instanceof ConfigError) return failFromMessage(name, error.message, `point ${prefix}_RPC_URL at a node of chain ${chainId}`)
    throw error
  }
  // It answered a moment ago: a warning now is the node going away in between.
  if (logger.lines.length > 0) return fail(name, `${prefix}_RPC_URL ${shown} stopped answering`, `check the node at ${shown}`)
  return pass(name, `${shown} answers as chain ${chainId}`)
}
