import type { Logger } from '../../shared/index.ts'
import type { Journal } from './openJournal.ts'

const everyMs = 3_600_000

/**
 * Keeps the journal small: at start and every hour, resolved slots (with their txs) and
 * kept reverts older than the retention (RELAYER_JOURNAL_RETENTION_DAYS) are deleted,
 * never what a running cool-down (`keepMs`) still needs, never a pending slot. A replay of
 * a pruned order is still answered: its settling tx is found in the Broker's logs
 * (docs/relayer-safety.md).
 */
export function createJournalPruning(options: { journal: Pick<Journal, 'prune'>; logger: Logger; retentionMs: number; keepMs: number; now?: () => number }) {
  const { journal, logger } = options
  const now = options.now ?? Date.now
  const keepMs = Math.max(options.retentionMs, options.keepMs)
  let timer: ReturnType<typeof setInterval> | undefined
  let running: Promise<void> = Promise.resolve()

  async function prune(): Promise<void> {
    try {
      const { slots, reverts } = await journal.prune(now() - keepMs)
      if (slots + reverts > 0) logger.info(`journal: pruned ${slots} resolved slot${slots === 1 ? '' : 's'} and ${reverts} kept revert${reverts === 1 ? '' : 's'} older than ${Math.round(keepMs / 86_400_000)} days (RELAYER_JOURNAL_RETENTION_DAYS)`)
    } catch (error) {
      logger.warn(`journal: pruning failed (${(error as Error).message}); trying again in an hour`)
    }
  }

  return {
    /** Prunes now, in the background, then every hour. */
    start() {
      running = prune()
      timer = setInterval(() => (running = running.then(prune)), everyMs)
      timer.unref?.()
    },
    /** Stops the timer; resolves once a prune in progress is over (the journal may then close). */
    async stop() {
      clearInterval(timer)
      await running
    },
    prune,
  }
}
