// What the relayer checks of its node and its journal at start, before it takes an order.
import type { Address, PublicClient } from 'viem'
import { ConfigError, type Logger } from '../shared/index.ts'
import type { Journal } from './journal/index.ts'

/**
 * At start-up: a node serving another chain is a configuration error (every
 * transaction would be signed for the wrong chain); a node that does not answer is
 * only a warning, since it may come up later and orders answer UPSTREAM_RPC until then.
 */
export async function checkRpcChain(client: PublicClient, chainId: number, logger: Logger, /** Whose variables the message names (`order-relay check` asks for the indexer's too). */ prefix: 'RELAYER' | 'INDEXER' = 'RELAYER'): Promise<void> {
  let remote: number
  try {
    remote = await client.getChainId()
  } catch {
    logger.warn(`the RPC does not answer yet; POST /broker answers UPSTREAM_RPC until it does`)
    return
  }
  if (remote !== chainId) {
    throw new ConfigError(`${prefix}_RPC_URL serves chain ${remote}, not ${prefix}_CHAIN_ID ${chainId}: point it at a node of chain ${chainId}`)
  }
}

/**
 * At start-up: a journal that saw this key's txs mined up to nonce N belongs to
 * another chain (or a chain that was reset, like a restarted devnet) when the chain's
 * nonce for the key is not past N: its nonces would be wrong, so the relayer refuses
 * to start rather than sign into a gap. A node that does not answer is left to
 * checkRpcChain's warning.
 */
export async function checkJournalMatchesChain(client: PublicClient, journal: Journal, address: Address): Promise<void> {
  const lastMined = journal.lastMinedNonce()
  if (lastMined === undefined) return
  let latest: number
  try {
    latest = await client.getTransactionCount({ address, blockTag: 'latest' })
  } catch {
    return
  }
  if (latest <= lastMined) {
    throw new ConfigError(
      `RELAYER_DB ${journal.path} saw nonce ${lastMined} of ${address} mined, but the chain's nonce for it is ${latest}: the chain was reset or this journal belongs to another chain; move the journal away (or set RELAYER_DB to a new file) and start again`,
    )
  }
}

/** Chains that only ever run on a developer's machine: anvil's and hardhat's default chain ids. */
const devnetChainIds = new Set([31337, 1337])

/**
 * At start-up with RELAYER_PK: one warning line, unless the chain is a local devnet (chain
 * 31337 or 1337, or a node that says it is anvil or hardhat, the devnet's own included,
 * whatever chain id it serves). A key in an environment variable is exposed by `ps e`,
 * a crash dump or a leaked `.env`; with real money a keystore, a remote signer or KMS keeps
 * it out of the environment (docs/keys.md). A node that does not answer cannot say it is a
 * devnet: the warning is given.
 */
export async function warnLocalKeyOnRealChain(client: PublicClient, chainId: number, logger: Logger): Promise<void> {
  if (devnetChainIds.has(chainId)) return
  const node = await client.request({ method: 'web3_clientVersion' }).catch(() => undefined)
  if (typeof node === 'string' && /^(anvil|hardhat)/i.test(node)) return
  logger.warn(
    `the gas key comes from RELAYER_PK on chain ${chainId}: any process or crash dump that reads the environment holds it; with real money use RELAYER_KEYSTORE, a remote signer (RELAYER_SIGNER_URL) or AWS KMS (RELAYER_KMS_KEY_ID) instead (docs/keys.md)`,
  )
}
