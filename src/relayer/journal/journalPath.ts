import { join } from 'node:path'
import type { Address } from 'viem'

/** The default journal: one file per chain and gas address under `.order-relay/` in the working directory. */
export function defaultJournalPath(chainId: number, address: Address, cwd = process.cwd()): string {
  return join(cwd, '.order-relay', `relayer-${chainId}-${address.toLowerCase()}.sqlite`)
}
