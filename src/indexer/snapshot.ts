import { createHash } from 'node:crypto'
import type { ActivitySnapshot } from '../wire/index.ts'
import type { IndexerConfig } from './config.ts'
import type { SyncStatus } from './sync/syncer.ts'

export type BuiltSnapshot = {
  snapshot: ActivitySnapshot
  /** The serialized body, built once per state, served as is. */
  body: string
  /** A strong ETag over the body. */
  etag: string
}

/**
 * Builds the `GET /activity` body (SPEC.md 2.1) once per indexed state — events,
 * height, head, staleness — and serves the cached JSON and its ETag until that
 * state changes, so a request costs a comparison, not a serialization.
 *
 * @example
 * const snapshots = createSnapshotCache(config, syncer.status, Date.now)
 * const { body, etag } = snapshots.current()
 */
export function createSnapshotCache(config: IndexerConfig, status: () => SyncStatus, now: () => number) {
  let cached: (BuiltSnapshot & { key: string }) | undefined

  return {
    current(): BuiltSnapshot {
      const state = status()
      const { head, lagBlocks, stale } = freshness(config, state, now)
      const key = `${state.generation}:${head}:${stale}`
      if (cached?.key === key) return cached

      const snapshot: ActivitySnapshot = {
        source: 'chain',
        chainId: config.chainId,
        addresses: [...config.addresses],
        deployedAt: config.deployedAt.toString(),
        indexedThrough: state.indexedThrough.toString(),
        head: head.toString(),
        lagBlocks,
        stale,
        truncated: state.truncated,
        events: [...state.events],
      }
      const body = JSON.stringify(snapshot)
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`
      cached = { key, snapshot, body, etag }
      return cached
    },
    /** The last snapshot built, if any (served when building a new one fails). */
    last(): BuiltSnapshot | undefined {
      return cached
    },
  }
}

export type SnapshotCache = ReturnType<typeof createSnapshotCache>

/** How far behind the index is, and whether that makes it stale (SPEC.md 2.1). */
export function freshness(config: IndexerConfig, state: SyncStatus, now: () => number) {
  const head = state.head ?? state.indexedThrough
  const lagBlocks = head > state.indexedThrough ? Number(head - state.indexedThrough) : 0
  // Never fresh without a head read, nor when the head has not been readable for a while.
  const headUnreadable = state.headReadAt === undefined || now() - state.headReadAt > config.headStaleMs
  // A reorg being repaired is stale whatever the lag says: the events above the fork are being re-read.
  const stale = headUnreadable || lagBlocks > config.staleBlocks || state.repairing
  return { head, lagBlocks, headUnreadable, stale }
}
