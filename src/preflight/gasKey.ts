import type { Address } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { ConfigError, createEnvReader, type Env, errorLine, silentLogger } from '../shared/index.ts'
import { keySourceOf, SignerError } from '../signers/index.ts'

/** The gas key's address, or why there is none (naming the variable; never the key). */
export type GasKey = { ok: true; address: Address; source: string } | { ok: false; problem: string; fix: string }

/**
 * The gas account's address from the configured key: RELAYER_PK read and validated as
 * the relayer reads it, or a keystore, remote signer or KMS key opened as the relayer
 * opens it (so the check also says the keystore's password opens it, the signer holds
 * the account, the KMS key is a usable secp256k1 key). The one place `check` learns the
 * gas address. The key itself is dropped at once and never returned.
 *
 * @example
 * const key = await gasKeyAddress(process.env, { chainId: 421614, timeoutMs: 10_000 })
 * if (key.ok) console.log(key.address)
 */
export async function gasKeyAddress(env: Env, chain?: { chainId: number; timeoutMs: number }): Promise<GasKey> {
  const problems: string[] = []
  const source = keySourceOf(env, (problem) => problems.push(problem))
  if (!source) return { ok: false, problem: problems.join('; '), fix: 'set exactly one of RELAYER_KEYSTORE, RELAYER_SIGNER_URL, RELAYER_KMS_KEY_ID or RELAYER_PK (docs/keys.md)' }
  if (source.kind === 'private-key') return privateKeyAddress(env)
  if (!chain) return { ok: false, problem: `${source.variable} cannot be opened before the relayer's configuration reads`, fix: 'correct the configuration problems above' }
  try {
    const { openGasSigner } = await import('../signers/openGasSigner.ts')
    const signer = await openGasSigner(env, { chainId: chain.chainId, logger: silentLogger, timeoutMs: chain.timeoutMs })
    await signer.close?.().catch(() => undefined)
    return { ok: true, address: signer.address, source: signer.description }
  } catch (error) {
    if (error instanceof SignerError) return { ok: false, problem: error.shortMessage, fix: error.fix ?? `correct ${source.variable} (docs/keys.md)` }
    return { ok: false, problem: `${source.variable}: ${errorLine(error)}`, fix: `correct ${source.variable} (docs/keys.md)` }
  }
}

/** RELAYER_PK's address, or why it is not a usable key. */
function privateKeyAddress(env: Env): GasKey {
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
