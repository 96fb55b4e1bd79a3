import type { Hex } from 'viem'
import { type IndexerConfig, readIndexerConfig } from '../indexer/config.ts'
import { readRelayerConfig, type RelayerConfig } from '../relayer/config.ts'
import { ConfigError, type Env } from '../shared/index.ts'
import { type CheckResult, fail } from './checkResult.ts'
import { keySourceOf } from '../signers/index.ts'
import { type GasKey, gasKeyAddress } from './gasKey.ts'

/** What `check` looks at: the relayer's and/or the indexer's configuration, read as those commands read it. */
export type Targets = {
  relayer?: { config: RelayerConfig; key: GasKey }
  indexer?: IndexerConfig
  /** One failed `config` check per configuration problem (each names its variable). */
  problems: CheckResult[]
}

export type Surfaces = { relayer: boolean; indexer: boolean }

/**
 * Which services to check: the ones asked for, else the ones whose variables are set
 * (RELAYER_* and INDEXER_*, both as `serve` runs them), else the relayer.
 *
 * @example
 * surfacesFrom({ INDEXER_MANIFEST: 'm.json' }, {}) // { relayer: false, indexer: true }
 */
export function surfacesFrom(env: Env, asked: Partial<Surfaces>): Surfaces {
  if (asked.relayer || asked.indexer) return { relayer: asked.relayer === true, indexer: asked.indexer === true }
  const set = (prefix: string) => Object.entries(env).some(([name, value]) => name.startsWith(prefix) && value !== undefined && value !== '')
  const indexer = set('INDEXER_')
  return { relayer: set('RELAYER_') || !indexer, indexer }
}

/**
 * A stand-in key for reading the rest of the relayer's configuration when RELAYER_PK is
 * missing or malformed (that problem is the gas key check's): secp256k1's scalar 1,
 * never used to sign anything and dropped with the config's key.
 */
const standInKey: Hex = `0x${'0'.repeat(63)}1`

/**
 * Reads each service's configuration as `relayer`, `indexer` and `serve` do (`--manifest`
 * wins over the *_MANIFEST variables). Configuration problems become failed `config`
 * checks instead of an exit 2, one per problem; the gas key is read on its own
 * (gasKey.ts) so a missing key still lets the chain be checked. No key stays in the
 * returned config.
 */
export async function readTargets(env: Env, surfaces: Surfaces, manifestPath: string | undefined): Promise<Targets> {
  const targets: Targets = { problems: [] }
  if (surfaces.relayer) {
    let key = await gasKeyAddress(env)
    // A key kept elsewhere is opened once the chain it signs for is known.
    const elsewhere = !key.ok && keySourceOf(env, () => {}) !== undefined && env.RELAYER_PK === undefined
    const config = attempt(targets, () => readRelayerConfig(env, { manifestPath, ...(key.ok || elsewhere ? {} : { privateKey: standInKey }) }))
    if (config) {
      delete config.privateKey
      if (elsewhere) key = await gasKeyAddress(env, { chainId: config.chainId, timeoutMs: config.signerTimeoutMs })
      targets.relayer = { config, key }
    } else if (!key.ok) {
      targets.problems.push(fail('gas key', key.problem, key.fix))
    }
  }
  if (surfaces.indexer) {
    const config = attempt(targets, () => readIndexerConfig(env, { manifestPath }))
    if (config) targets.indexer = config
  }
  return targets
}

function attempt<T>(targets: Targets, read: () => T): T | undefined {
  try {
    return read()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    const details = error.details ?? error.message
    for (const problem of details.split('\n').map((line) => line.replace(/^\s*- /, '').trim()).filter(Boolean)) {
      const variable = /^(?:--manifest|[A-Z][A-Z0-9_]+)/.exec(problem)?.[0]
      const fix =
        variable === '--manifest'
          ? 'pass --manifest the path of a manifest order-relay deploy or devnet wrote'
          : variable
            ? `set ${variable} as described (order-relay check --help lists every variable; docs/configuration.md)`
            : 'correct the configuration as described (docs/configuration.md)'
      targets.problems.push(fail('config', problem, fix))
    }
    return undefined
  }
}
