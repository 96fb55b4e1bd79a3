import type { PublicClient } from 'viem'
import type { IndexerConfig } from '../indexer/config.ts'
import { type CheckResult, fail, pass } from './checkResult.ts'

const roles = ['registry', 'inbox', 'pool', 'escrow'] as const

/** The four registry contracts the indexer reads have code on its chain. `variable` names where they came from. */
export async function checkIndexerContracts(client: PublicClient, config: IndexerConfig, variable: string): Promise<CheckResult> {
  const codes = await Promise.all(config.addresses.map((address) => client.getCode({ address })))
  const missing = roles.filter((_, i) => !codes[i] || codes[i] === '0x').map((role) => `${role} ${config.addresses[roles.indexOf(role)]}`)
  if (missing.length > 0) {
    return fail('indexer contracts', `${variable}: ${missing.join(', ')} ${missing.length === 1 ? 'has' : 'have'} no code on chain ${config.chainId}`, `set ${variable} to the registry contracts deployed on chain ${config.chainId} (registry,inbox,pool,escrow)`)
  }
  return pass('indexer contracts', `registry, inbox, pool and escrow have code on chain ${config.chainId}`)
}
