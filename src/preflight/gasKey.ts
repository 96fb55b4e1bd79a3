import type { Address } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { ConfigError, createEnvReader, type Env } from '../shared/index.ts'

/** The gas key's address, or why there is none (naming the variable; never the key). */
export type GasKey = { ok: true; address: Address; source: string } | { ok: false; problem: string; fix: string }

/**
 * The gas account's address from the configured key (RELAYER_PK, read and validated as
 * the relayer reads it). The one place `check` learns the gas address: a key kept
 * elsewhere (a keystore, a remote signer, KMS) is told here by its address alone. The key
 * itself is dropped at once and never returned.
 *
 * @example
 * const key = gasKeyAddress(process.env)
 * if (key.ok) console.log(key.address)
 */
export function gasKeyAddress(env: Env): GasKey {
  const read = createEnvReader(env)
  const key = read.privateKey('RELAYER_PK', true)
  if (!key) {
    const problem = (() => {
      try {
        read.done('gas key')
      } catch (error) {
        return (error instanceof ConfigError ? (error.details ?? error.message) : String(error)).replace(/^\s*- /, '')
      }
      return 'RELAYER_PK is not a usable key'
    })()
    return { ok: false, problem, fix: 'set RELAYER_PK to the gas account\'s private key: 0x followed by 64 hex digits (it is never printed)' }
  }
  return { ok: true, address: privateKeyToAccount(key).address, source: 'RELAYER_PK' }
}
