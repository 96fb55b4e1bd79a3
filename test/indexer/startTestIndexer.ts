import type { Devnet } from '../../src/devnet/index.ts'
import { createIndexer, type IndexerConfig, readIndexerConfig } from '../../src/indexer/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'

export type TestIndexer = Awaited<ReturnType<typeof startTestIndexer>>

/**
 * A real indexer over HTTP on 127.0.0.1 (free port) for the devnet's registry set,
 * its log captured. By default the sync loop does not run: the test drives
 * `sync.syncOnce()`; `loop: true` runs it every `pollMs`. The store is `:memory:`
 * unless `overrides.db` names a file (in a temp directory).
 */
export async function startTestIndexer(
  devnet: Devnet,
  options: { overrides?: Partial<IndexerConfig>; rpcUrl?: string; now?: () => number; loop?: boolean } = {},
) {
  const logger = createMemoryLogger()
  const { registry, inbox, pool, escrow } = devnet.manifest.contracts
  const config = readIndexerConfig(
    {
      INDEXER_CHAIN_ID: String(devnet.chainId),
      INDEXER_RPC_URL: options.rpcUrl ?? devnet.rpcUrl,
      INDEXER_ADDRESSES: [registry, inbox, pool, escrow].join(','),
      INDEXER_DEPLOYED_AT: devnet.manifest.deployedAt,
    },
    // A throw-away store unless the test names one (never the working directory's .order-relay/).
    { host: '127.0.0.1', port: 0, pollMs: 20, db: ':memory:', ...options.overrides },
  )
  const indexer = createIndexer(config, { logger, ...(options.now ? { now: options.now } : {}) })
  const server = await indexer.serve({ sync: options.loop === true })
  return {
    url: server.url,
    indexer,
    sync: indexer.sync,
    logger,
    config,
    stop: () => server.stop(),
    /** GET a path; status, headers and the body as text and (when JSON) parsed. */
    async get(path: string, init: RequestInit = {}) {
      const response = await fetch(`${server.url}${path}`, init)
      const text = await response.text()
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        json = undefined
      }
      return { status: response.status, headers: response.headers, text, json }
    },
  }
}
