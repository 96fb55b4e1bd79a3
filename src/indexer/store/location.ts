import { createHash } from 'node:crypto'
import { join } from 'node:path'

/**
 * The default store file: `.order-relay/indexer-<chainId>-<digest>.sqlite` in the
 * working directory, the digest over the address set and deployedAt, so another
 * chain or contract set never opens the same file.
 */
export function defaultStorePath(chainId: number, addresses: readonly string[], deployedAt: bigint, cwd = process.cwd()): string {
  return join(cwd, '.order-relay', `indexer-${chainId}-${indexDigest(addresses, deployedAt).slice(0, 12)}.sqlite`)
}

/** SHA-256 (hex) over the address set and deployedAt: what names one index (a file, a PostgreSQL schema, a lock key). */
export function indexDigest(addresses: readonly string[], deployedAt: bigint): string {
  return createHash('sha256')
    .update(`${addresses.map((address) => address.toLowerCase()).join(',')}@${deployedAt}`)
    .digest('hex')
}
