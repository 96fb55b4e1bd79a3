import type { IndexerConfig } from '../indexer/config.ts'
import { createPostgresStore } from '../indexer/store/index.ts'
import { ConfigError, redactUrl } from '../shared/index.ts'
import { type CheckResult, failFromMessage, pass } from './checkResult.ts'
import { checkWritableFile } from './writableFile.ts'

/**
 * The indexer's store: PostgreSQL (INDEXER_DATABASE_URL) reachable and its schema holding
 * this index or not yet created (a writer creates it at start; a reader needs it), opened
 * read-only so nothing is written; else the SQLite file (INDEXER_DB) writable.
 */
export async function checkIndexerStore(config: IndexerConfig): Promise<CheckResult> {
  if (!config.databaseUrl) {
    if (config.db === ':memory:') return pass('indexer store', 'INDEXER_DB=:memory: keeps nothing on disk (a restart indexes from INDEXER_DEPLOYED_AT again)')
    return checkWritableFile('indexer store', config.db, 'INDEXER_DB', 'the indexer')
  }
  const shown = redactUrl(config.databaseUrl)
  const identity = { chainId: config.chainId, addresses: config.addresses, deployedAt: config.deployedAt }
  const store = createPostgresStore({ url: config.databaseUrl, identity, retention: config.retention, hashWindow: config.reorgWindow, readOnly: true })
  try {
    await store.open()
    return pass('postgresql', `INDEXER_DATABASE_URL ${shown} answers; schema ${store.schema} holds this index`)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    if (config.role === 'auto' && error.message.includes(`schema ${store.schema} does not exist yet`)) {
      return pass('postgresql', `INDEXER_DATABASE_URL ${shown} answers; schema ${store.schema} is created by the first indexer to start`)
    }
    return failFromMessage('postgresql', error.message, 'start PostgreSQL there, and check the URL, its user and password (docs/indexer.md)')
  } finally {
    await store.close()
  }
}
