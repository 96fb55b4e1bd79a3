import type { IndexerReadiness } from '../wire/index.ts'
import type { IndexerConfig } from './config.ts'
import { freshness } from './snapshot.ts'
import type { SyncStatus } from './sync/syncer.ts'

/** With INDEXER_DATABASE_URL: this process's role, and why PostgreSQL cannot be used right now. */
export type ReplicaState = {
  role: 'writer' | 'reader'
  problem: string | undefined
  /** Polls that failed in a row in the current database outage (0 while it answers). */
  failedPolls: number
}

/**
 * Whether a load balancer should send traffic here (`GET /ready`), with the first
 * reason it should not: the head cannot be read, a reorg is being repaired, the
 * first catch-up since start is still running, or the index lags past
 * INDEXER_STALE_BLOCKS. Liveness is `/health`'s job, not this.
 *
 * @example
 * const { ready, reason } = readiness(config, syncer.status(), Date.now)
 */
export function readiness(config: IndexerConfig, state: SyncStatus, now: () => number, replica?: ReplicaState): IndexerReadiness {
  const { head, lagBlocks, headUnreadable, stale } = freshness(config, state, now)
  const heights = {
    indexedThrough: state.indexedThrough.toString(),
    head: state.head === undefined ? null : head.toString(),
    lagBlocks,
    ...(replica ? { role: replica.role } : {}),
  }
  const not = (reason: NonNullable<IndexerReadiness['reason']>, message: string): IndexerReadiness => ({ ready: false, reason, message, ...heights })
  if (replica?.problem !== undefined) return not('database-unreachable', replica.problem)
  if (headUnreadable) {
    return not('head-unreadable', state.headReadAt === undefined ? 'the chain head has not been read yet' : `the chain head could not be read for over ${config.headStaleMs} ms`)
  }
  if (state.repairing) return not('repairing', 'a reorg is being repaired: events above the fork are being fetched again')
  // A read replica never backfills: how far the writer got is judged by the lag alone.
  if (!state.caughtUp && replica?.role !== 'reader') return not('backfilling', `catching up: indexed through block ${state.indexedThrough} of ${head}`)
  if (stale) return not('stale', `${lagBlocks} blocks behind the head, more than INDEXER_STALE_BLOCKS (${config.staleBlocks})`)
  return { ready: true, ...heights }
}
