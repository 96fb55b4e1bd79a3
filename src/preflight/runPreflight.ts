import { existsSync } from 'node:fs'
import { createPublicClient, http, type PublicClient } from 'viem'
import type { IndexerConfig } from '../indexer/config.ts'
import type { RelayerConfig } from '../relayer/config.ts'
import { isArbitrumChain } from '../relayer/economics/index.ts'
import { defaultJournalPath } from '../relayer/journal/index.ts'
import { nodeSays } from '../relayer/index.ts'
import { type Env, redactUrls } from '../shared/index.ts'
import { checkBalance } from './checkBalance.ts'
import { checkBroker } from './checkBroker.ts'
import { checkIndexerContracts } from './checkIndexerContracts.ts'
import { checkIndexerStore } from './checkIndexerStore.ts'
import { checkJournalLock, checkJournalWritable } from './checkJournal.ts'
import { checkJournalHistory } from './checkJournalHistory.ts'
import { checkNodeInterface } from './checkNodeInterface.ts'
import { checkPayTokens } from './checkPayTokens.ts'
import { checkRedis } from './checkRedis.ts'
import { type CheckResult, fail, pass } from './checkResult.ts'
import { checkRpc } from './checkRpc.ts'
import type { GasKey } from './gasKey.ts'
import { readTargets, type Surfaces } from './readTargets.ts'

export type PreflightOptions = {
  env: Env
  /** Which services to check (readTargets.ts `surfacesFrom`). */
  surfaces: Surfaces
  /** `--manifest`: wins over RELAYER_MANIFEST and INDEXER_MANIFEST. */
  manifestPath?: string | undefined
  /** Longest one RPC request may take (default 5 s). */
  rpcTimeoutMs?: number
}

/**
 * Everything `order-relay check` checks, in order: the configuration as the services read
 * it; for the relayer the RPC and its chain, the Broker, the gas key and its balance, the
 * pay tokens and their feeds, NodeInterface (Arbitrum-family chains), the journal and its
 * lock, Redis (when RELAYER_REDIS_URL is set); for the indexer its RPC, contracts and
 * store. Checks that need the chain are left out while the RPC does not answer. Reads
 * only: nothing is signed, sent or written.
 *
 * @example
 * const results = await runPreflight({ env: process.env, surfaces: { relayer: true, indexer: false } })
 * const ok = results.every((result) => result.ok)
 */
export async function runPreflight(options: PreflightOptions): Promise<CheckResult[]> {
  const { env } = options
  const targets = await readTargets(env, options.surfaces, options.manifestPath)
  const results: CheckResult[] = [...targets.problems]
  const client = (rpcUrl: string) => createPublicClient({ transport: http(rpcUrl, { retryCount: 0, timeout: options.rpcTimeoutMs ?? 5_000 }) }) as PublicClient
  const manifestNamed = options.manifestPath !== undefined ? '--manifest' : undefined
  if (targets.relayer) {
    const { config, key } = targets.relayer
    results.push(...(await relayerChecks(config, key, client(config.rpcUrl), env, manifestNamed)))
  }
  if (targets.indexer) results.push(...(await indexerChecks(targets.indexer, client(targets.indexer.rpcUrl), env, manifestNamed)))
  return results
}

/**
 * Runs one check; an error it did not expect (the node going away mid-check, a file read
 * failing) becomes its failure, told without URLs' credentials, so one check never stops
 * the others.
 */
async function guard(name: string, run: () => Promise<CheckResult>): Promise<CheckResult> {
  return (await guardAll(name, async () => [await run()]))[0]!
}

async function guardAll(name: string, run: () => Promise<CheckResult[]>): Promise<CheckResult[]> {
  try {
    return await run()
  } catch (error) {
    return [fail(name, `could not be checked: ${redactUrls(nodeSays(error))}`, 'run order-relay check again once the RPC (and the service it names) answers')]
  }
}

async function relayerChecks(config: RelayerConfig, key: GasKey, client: PublicClient, env: Env, manifestFlag: string | undefined): Promise<CheckResult[]> {
  const results: CheckResult[] = [key.ok ? pass('gas key', `${key.source}: address ${key.address}`) : fail('gas key', key.problem, key.fix)]
  const rpc = await checkRpc(client, { name: 'rpc', rpcUrl: config.rpcUrl, chainId: config.chainId, prefix: 'RELAYER' })
  results.push(rpc)
  if (rpc.ok) {
    const brokerVariable = env.RELAYER_BROKER ? 'RELAYER_BROKER' : `${manifestFlag ?? 'RELAYER_MANIFEST'} contracts.broker`
    const broker = await guard('broker', () => checkBroker(client, { broker: config.broker, chainId: config.chainId, variable: brokerVariable }))
    results.push(broker)
    if (key.ok) results.push(await guard('gas balance', () => checkBalance(client, { address: key.address, floorWei: config.edge.gasFloorWei })))
    results.push(...(await guardAll('pay tokens', () => checkPayTokens(client, config.economics))))
    if (isArbitrumChain(config.chainId) && broker.ok) results.push(await guard('NodeInterface', () => checkNodeInterface(client, { chainId: config.chainId, broker: config.broker, variable: 'RELAYER_RPC_URL' })))
  }
  const journalPath = config.journalPath ?? (key.ok ? defaultJournalPath(config.chainId, key.address) : undefined)
  const journalVariable = config.journalPath !== undefined ? 'RELAYER_DB' : 'the default journal (RELAYER_DB unset)'
  if (journalPath === undefined) {
    results.push(fail('journal', 'the default journal is named after the gas address, and RELAYER_PK gives none', 'set RELAYER_PK (or RELAYER_DB to the journal file)'))
  } else {
    const lock = await guard('journal lock', async () => checkJournalLock(journalPath, journalVariable))
    results.push(await guard('journal', async () => checkJournalWritable(journalPath, journalVariable)), lock)
    // Its history only while nobody holds it, against a chain that answers, for a known key.
    if (lock.ok && rpc.ok && key.ok && journalPath !== ':memory:' && existsSync(journalPath)) {
      results.push(await guard('journal history', () => checkJournalHistory(client, { path: journalPath, chainId: config.chainId, address: key.address })))
    }
  }
  if (config.redisUrl) results.push(...(await guardAll('redis', () => checkRedis(config.redisUrl as string))))
  return results
}

async function indexerChecks(config: IndexerConfig, client: PublicClient, env: Env, manifestFlag: string | undefined): Promise<CheckResult[]> {
  const rpc = await checkRpc(client, { name: 'indexer rpc', rpcUrl: config.rpcUrl, chainId: config.chainId, prefix: 'INDEXER' })
  const results = [rpc]
  if (rpc.ok) results.push(await guard('indexer contracts', () => checkIndexerContracts(client, config, env.INDEXER_ADDRESSES ? 'INDEXER_ADDRESSES' : `${manifestFlag ?? 'INDEXER_MANIFEST'} contracts`)))
  results.push(await guard(config.databaseUrl ? 'postgresql' : 'indexer store', () => checkIndexerStore(config)))
  return results
}
