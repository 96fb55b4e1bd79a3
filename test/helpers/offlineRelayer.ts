import { generatePrivateKey } from 'viem/accounts'
import { createRelayer, readRelayerConfig } from '../../src/relayer/index.ts'
import { createMemoryLogger, type LogFormat } from '../../src/shared/index.ts'

export const offlineChainId = 31337
export const offlineBroker = `0x${'0d'.repeat(20)}` as const

/**
 * A relayer built but not serving (no chain is asked at build time), its RPC at
 * `rpcUrl` (default: a port nothing listens on), its journal in memory: for the HTTP
 * surface through `app.request`, where a request refused before the pipeline never
 * needs a node. Its log lines are kept in `logger.lines`.
 */
export function offlineRelayer(env: Record<string, string>, rpcUrl = 'http://127.0.0.1:9', format: LogFormat = 'text') {
  const logger = createMemoryLogger(format)
  const config = readRelayerConfig(
    { RELAYER_PK: generatePrivateKey(), RELAYER_CHAIN_ID: String(offlineChainId), RELAYER_RPC_URL: rpcUrl, RELAYER_BROKER: offlineBroker, RELAYER_DB: ':memory:', ...env },
    { host: '127.0.0.1', port: 0 },
  )
  return { relayer: createRelayer(config, { logger, version: 'test' }), logger }
}
