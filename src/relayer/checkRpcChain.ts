import type { PublicClient } from 'viem'
import type { Logger } from '../shared/index.ts'
import { ConfigError } from '../shared/index.ts'

/**
 * At start-up: a node serving another chain is a configuration error (every
 * transaction would be signed for the wrong chain); a node that does not answer is
 * only a warning, since it may come up later and orders answer UPSTREAM_RPC until then.
 */
export async function checkRpcChain(client: PublicClient, chainId: number, logger: Logger): Promise<void> {
  let remote: number
  try {
    remote = await client.getChainId()
  } catch {
    logger.warn(`the RPC does not answer yet; POST /broker answers UPSTREAM_RPC until it does`)
    return
  }
  if (remote !== chainId) {
    throw new ConfigError(`RELAYER_RPC_URL serves chain ${remote}, not RELAYER_CHAIN_ID ${chainId}: point it at a node of chain ${chainId}`)
  }
}
