import { errorLine, type Logger } from '../../shared/index.ts'
import type { IndexerConfig } from '../config.ts'
import type { PostgresStore } from '../store/index.ts'
import type { Syncer } from '../sync/syncer.ts'

/**
 * A standby's watch over the writer: a writer that holds the lock but commits nothing
 * for INDEXER_WRITER_TIMEOUT_MS while the chain head (read by this process) is ahead
 * of the stored checkpoint is hung (a stopped process, a connection that went silent,
 * a sync stuck on a call): its PostgreSQL session is ended (`pg_terminate_backend`).
 * That rolls back whatever transaction it had open and releases its lock, so the
 * standby's next try takes the lead, and the old writer, when it wakes, finds its
 * session gone: every commit it tries fails, and it steps down (roles.ts). The clock
 * restarts whenever the writer commits, the lock changes hands, or the chain is not
 * ahead of the index (an idle writer is not a hung one).
 *
 * @example
 * const watch = createWriterWatch({ store, syncer, config, logger, now: Date.now })
 * if (await watch.check()) retryTheLockNow()
 */
export function createWriterWatch({ store, syncer, config, logger, now }: { store: PostgresStore; syncer: Syncer; config: IndexerConfig; logger: Logger; now: () => number }) {
  /** What was last seen of the writer, and since when it has not changed. */
  let seen: { key: string; since: number } = { key: '', since: 0 }
  let refused = false

  return {
    /** One look at the writer; true when its session was just ended (try the lock now). */
    async check(): Promise<boolean> {
      const progress = await store.writerProgress()
      const key = `${progress.pid}:${progress.lastSeq}:${progress.checkpoint?.block}:${progress.checkpoint?.hash}`
      const at = now()
      if (key !== seen.key) {
        seen = { key, since: at }
        return false
      }
      if (progress.pid === undefined) return false
      const { head, headReadAt } = syncer.status()
      // The chain must be known to be ahead, from a head read this process trusts.
      if (head === undefined || headReadAt === undefined || at - headReadAt > config.headStaleMs) return false
      const stored = progress.checkpoint?.block ?? config.deployedAt - 1n
      if (head <= stored) {
        seen.since = at
        return false
      }
      const quiet = at - seen.since
      if (quiet < config.writerTimeoutMs) return false
      try {
        const ended = await store.endSession(progress.pid)
        logger.warn(
          `indexer: the writer (PostgreSQL session ${progress.pid}) committed nothing for ${quiet} ms while the chain moved ahead (head ${head}, stored checkpoint ${stored}): ${ended ? 'ended its session' : 'its session had already ended'} (INDEXER_WRITER_TIMEOUT_MS=${config.writerTimeoutMs}); taking over`,
        )
        refused = false
        seen = { key: '', since: at }
        return true
      } catch (error) {
        if (!refused) {
          logger.warn(
            `indexer: the writer (PostgreSQL session ${progress.pid}) is hung (nothing committed for ${quiet} ms while the chain moved ahead) but its session cannot be ended (${errorLine(error)}): give this process's PostgreSQL role the writer's role or pg_signal_backend`,
          )
        }
        refused = true
        return false
      }
    },
  }
}
