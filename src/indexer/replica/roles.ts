import { errorLine, type Logger } from '../../shared/index.ts'
import type { IndexerConfig } from '../config.ts'
import type { ReplicaState } from '../readiness.ts'
import type { PostgresStore } from '../store/index.ts'
import { createOutageLog } from '../sync/outage.ts'
import type { Syncer } from '../sync/syncer.ts'
import { createWriterWatch } from './writerWatch.ts'

/**
 * Writer or read replica over one PostgreSQL index (INDEXER_DATABASE_URL).
 *
 * - With INDEXER_ROLE=auto, every `pollMs` the process tries the writer lock: holding
 *   it, it runs the syncer (which commits ranges); without it, it is a standby read
 *   replica that takes over as soon as the lock is free (the writer's session closed),
 *   and that ends the writer's session itself when the writer commits nothing for
 *   INDEXER_WRITER_TIMEOUT_MS while the chain is ahead of it (writerWatch.ts).
 * - With INDEXER_ROLE=reader it is only ever a read replica: it never tries the lock,
 *   never ends a session and never writes.
 *
 * A read replica follows the store's change history: woken by the writer's `NOTIFY`
 * (and at least every `pollMs`), it reads the changes after the number it serves
 * (events added, removals) and applies them, or loads everything again when that is
 * not possible. Apart from that loop, every role reads the chain head every `pollMs`
 * (`keepHead`), whatever PostgreSQL or the writer do, so `head`, `lagBlocks` and
 * `stale` stay true in an outage. An outage is logged once and shown by `/ready`
 * until PostgreSQL answers again.
 *
 * @example
 * const roles = createReplicaRoles({ store, syncer, config, logger, now: Date.now })
 * await roles.start()
 * roles.state() // { role: 'reader', problem: undefined, failedPolls: 0 }
 */
export function createReplicaRoles({ store, syncer, config, logger, now }: { store: PostgresStore; syncer: Syncer; config: IndexerConfig; logger: Logger; now: () => number }) {
  const outages = createOutageLog(logger)
  const readOnly = config.role === 'reader'
  const watch = createWriterWatch({ store, syncer, config, logger, now })
  let role: ReplicaState['role'] = 'reader'
  let problem: string | undefined
  let failedPolls = 0
  let announced = false
  let listening = false
  let halted = false
  let loops: Promise<void>[] = []
  const wakers = new Set<() => void>()

  /** Serves the store's current state: the changes after what is served, or all of it again. */
  async function follow() {
    const change = await store.changesSince(syncer.position(), config.retention)
    if (change.kind === 'after' && (!change.truncated || syncer.status().truncated)) syncer.applyStored(change)
    else if (change.kind !== 'same') await syncer.reload()
  }

  async function listen() {
    if (listening) return
    // A writer's own notifications are not worth a poll: it already serves what it wrote.
    await store.listen(() => {
      if (role !== 'writer') wake()
    })
    listening = true
  }

  async function poll() {
    try {
      await listen()
      if (role === 'writer' && !(await store.tryLead())) {
        await syncer.stop()
        role = 'reader'
        logger.warn(`indexer: lost the writer lock (its PostgreSQL session ended): stopped syncing, nothing more is written; serving ${store.schema} as a read replica until the lock is free again`)
      }
      if (role === 'reader' && !readOnly && (await store.tryLead())) {
        // The stored state is final now that nobody else writes: serve it, then go on from its checkpoint.
        await follow()
        role = 'writer'
        const through = syncer.status().indexedThrough
        logger.info(`indexer: role writer: holds the PostgreSQL advisory lock of ${store.schema}; syncing the chain from the stored checkpoint (indexed through block ${through})`)
        syncer.start()
      }
      if (role === 'reader') {
        if (!announced) {
          logger.info(
            readOnly
              ? `indexer: role reader (INDEXER_ROLE=reader): a read-only replica of ${store.schema}: never takes the writer lock; follows the writer's commits by LISTEN/NOTIFY, and polls every ${config.pollMs} ms`
              : `indexer: role reader: another process holds the writer lock of ${store.schema}; serving /activity from PostgreSQL, following the writer's commits by LISTEN/NOTIFY (and every ${config.pollMs} ms); taking over if it commits nothing for ${config.writerTimeoutMs} ms while the chain moves`,
          )
        }
        await follow()
        if (!readOnly && (await watch.check())) wake()
      }
      announced = true
      problem = undefined
      failedPolls = 0
      outages.recovered('database', `PostgreSQL answers again (${store.location}); role ${role}`)
    } catch (error) {
      problem = `PostgreSQL cannot be reached (${errorLine(error)}): serving the last snapshot`
      failedPolls++
      outages.failed('database', `${problem}; retrying every ${config.pollMs} ms (INDEXER_DATABASE_URL)`)
    }
  }

  /**
   * Reads the head when nothing else did for a while: the writer's sync ticks read it
   * (so this adds a read only when a tick is stuck, e.g. on a commit that hangs), a
   * read replica's only head reads are these. Never waits for PostgreSQL.
   */
  async function keepHead() {
    const { headReadAt } = syncer.status()
    const every = role === 'writer' ? 2 * config.pollMs : config.pollMs
    if (headReadAt === undefined || now() - headReadAt >= every) await syncer.refreshHead()
  }

  function wake() {
    for (const waker of wakers) waker()
  }

  function rest(ms: number) {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        wakers.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      wakers.add(done)
    })
  }

  function loop(step: () => Promise<void>, ms: number, wakes: boolean) {
    return (async () => {
      while (!halted) {
        await (wakes ? rest(ms) : new Promise<void>((resolve) => setTimeout(resolve, ms)))
        if (!halted) await step()
      }
    })()
  }

  return {
    state: (): ReplicaState => ({ role, problem, failedPolls }),
    /** Reads the head and decides the role once, then keeps polling every `pollMs` (and on NOTIFY) until `stop`. */
    async start() {
      halted = false
      await keepHead()
      await poll()
      if (loops.length === 0) loops = [loop(poll, config.pollMs, true), loop(keepHead, Math.max(1, Math.floor(config.pollMs / 2)), false)]
    },
    async stop() {
      halted = true
      wake()
      // A poll stuck on an unanswering PostgreSQL (or a head read on a slow node) is left behind after 2 s.
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([Promise.all(loops), new Promise<void>((resolve) => (timer = setTimeout(resolve, 2_000)))])
      clearTimeout(timer)
      loops = []
      await syncer.stop()
    },
  }
}
