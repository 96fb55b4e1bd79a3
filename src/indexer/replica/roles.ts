import type { Logger } from '../../shared/index.ts'
import type { IndexerConfig } from '../config.ts'
import type { ReplicaState } from '../readiness.ts'
import type { PostgresStore } from '../store/index.ts'
import { describeError } from '../sync/fetchLogs.ts'
import { createOutageLog } from '../sync/outage.ts'
import type { Syncer } from '../sync/syncer.ts'

/**
 * Writer or read replica over one PostgreSQL index (INDEXER_DATABASE_URL). Every
 * `pollMs` the process tries the writer lock: holding it, it runs the syncer (which
 * commits ranges); without it, it is a read-only API replica that follows the stored
 * checkpoint (appending the events committed since, or loading all again after a rewind) and reads the head only to judge its lag
 * (never `eth_getLogs`). A standby takes over as soon as the writer's connection
 * closes (PostgreSQL releases the lock), resuming from the stored checkpoint. An
 * outage is logged once and shown by `/ready` until PostgreSQL answers again.
 *
 * @example
 * const roles = createReplicaRoles({ store, syncer, config, logger })
 * await roles.start()
 * roles.state() // { role: 'reader', problem: undefined, failedPolls: 0 }
 */
export function createReplicaRoles({ store, syncer, config, logger }: { store: PostgresStore; syncer: Syncer; config: IndexerConfig; logger: Logger }) {
  const outages = createOutageLog(logger)
  let role: ReplicaState['role'] = 'reader'
  let problem: string | undefined
  let failedPolls = 0
  /** True once this process stops writing: it serves the store as it is, not what it held. */
  let reloadAll = false
  let announced = false
  let halted = false
  let loop: Promise<void> | undefined
  let wake: (() => void) | undefined

  async function poll() {
    try {
      if (role === 'writer' && !(await store.tryLead())) {
        await syncer.stop()
        role = 'reader'
        reloadAll = true
        logger.warn(`indexer: lost the writer lock (its PostgreSQL connection closed): stopped syncing; serving ${store.schema} as a read replica until the lock is free again`)
      }
      if (role === 'reader' && (await store.tryLead())) {
        await syncer.reload()
        role = 'writer'
        const through = syncer.status().indexedThrough
        logger.info(`indexer: role writer: holds the PostgreSQL advisory lock of ${store.schema}; syncing the chain from the stored checkpoint (indexed through block ${through})`)
        syncer.start()
      }
      if (role === 'reader') {
        if (!announced) {
          logger.info(`indexer: role reader: another process holds the writer lock of ${store.schema}; serving /activity from PostgreSQL, checkpoint polled every ${config.pollMs} ms`)
        }
        // Usually only the events of the writer's last ranges; all of them again after a rewind.
        const change = reloadAll ? ({ kind: 'moved' } as const) : await store.changesSince(syncer.checkpoint(), config.retention)
        if (change.kind === 'after' && (!change.truncated || syncer.status().truncated)) syncer.appendStored(change.events, change.checkpoint)
        else if (change.kind !== 'same') await syncer.reload()
        reloadAll = false
        await syncer.refreshHead()
      }
      announced = true
      problem = undefined
      failedPolls = 0
      outages.recovered('database', `PostgreSQL answers again (${store.location}); role ${role}`)
    } catch (error) {
      problem = `PostgreSQL cannot be reached (${describeError(error)}): serving the last snapshot`
      failedPolls++
      outages.failed('database', `${problem}; retrying every ${config.pollMs} ms (INDEXER_DATABASE_URL)`)
    }
  }

  return {
    state: (): ReplicaState => ({ role, problem, failedPolls }),
    /** Decides the role once, then keeps polling every `pollMs` until `stop`. */
    async start() {
      halted = false
      await poll()
      loop ??= (async () => {
        while (!halted) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, config.pollMs)
            wake = () => {
              clearTimeout(timer)
              resolve()
            }
          })
          if (!halted) await poll()
        }
      })()
    },
    async stop() {
      halted = true
      wake?.()
      await loop
      loop = undefined
      await syncer.stop()
    },
  }
}
