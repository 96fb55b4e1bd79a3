import type { Hex } from 'viem'
import { learnErrorAbi, type ManifestAdapter } from '../chain/index.ts'
import { learnAdapterEvents } from './steps/decodeSettlement.ts'

/**
 * Teaches the relayer adapters the project does not ship (a contract developer's own,
 * named in a devnet manifest): their custom errors are decoded with their arguments by
 * name in `WOULD_REVERT` messages, and their events make `receipt` in RelaySuccess
 * (`adapter` is the name given). Process-wide and only ever adding: the project's own
 * errors and events keep their meaning.
 *
 * @example
 * learnAdapters(readManifest(path).adapters ?? [])
 */
export function learnAdapters(adapters: readonly ManifestAdapter[]): void {
  for (const adapter of adapters) {
    learnErrorAbi(adapter.abi, adapter.name)
    learnAdapterEvents(adapter.address as Hex, adapter.name, adapter.abi)
  }
}
