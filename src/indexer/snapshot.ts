import { createHash } from 'node:crypto'
import type { ActivityEvent, ActivitySnapshot } from '../wire/index.ts'
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
  // The events' JSON, rebuilt only when the events change: a new head alone costs a few hundred bytes.
  // `read` gives the events of that version as objects, built only when something reads them.
  let serialized: { version: number; read: () => ActivityEvent[]; json: string; digest: string } | undefined

  return {
    current(): BuiltSnapshot {
      const state = status()
      const { head, lagBlocks, stale } = freshness(config, state, now)
      const key = `${state.generation}:${state.eventsVersion}:${head}:${stale}`
      if (cached?.key === key) return cached

      if (serialized?.version !== state.eventsVersion) {
        const version = state.eventsVersion
        let read: () => ActivityEvent[]
        let json: string
        if (state.eventsJson !== undefined) {
          // Just restored: the body is the stored text, and the objects (parsed from it) wait
          // for a filtered query or a metric. Read later, they are this version's: the log's
          // own if it has not changed since, else parsed from this version's text.
          const restoredJson = state.eventsJson
          let events: ActivityEvent[] | undefined
          json = restoredJson
          read = () => {
            if (events) return events
            const live = status()
            events = live.eventsVersion === version ? [...live.events] : (JSON.parse(restoredJson) as ActivityEvent[])
            return events
          }
        } else {
          const events = [...state.events]
          json = JSON.stringify(events)
          read = () => events
        }
        // A fast 64-bit content hash of the (large) events JSON; the ETag is a SHA-256 over it and the fields.
        serialized = { version, read, json, digest: `${json.length}:${Bun.hash.xxHash3(json).toString(16)}` }
      }
      const fields: Omit<ActivitySnapshot, 'events'> = {
        source: 'chain',
        chainId: config.chainId,
        addresses: [...config.addresses],
        deployedAt: config.deployedAt.toString(),
        indexedThrough: state.indexedThrough.toString(),
        head: head.toString(),
        lagBlocks,
        stale,
        truncated: state.truncated,
      }
      const { read } = serialized
      const snapshot: ActivitySnapshot = {
        ...fields,
        get events() {
          return read()
        },
      }
      // Byte for byte JSON.stringify(snapshot): `events` is the last field.
      const fieldsJson = JSON.stringify(fields)
      const body = `${fieldsJson.slice(0, -1)},"events":${serialized.json}}`
      // Strong: a digest over the fields and the events' digest, so over the whole body.
      const etag = `"${sha256(fieldsJson + serialized.digest).slice(0, 32)}"`
      cached = { key, snapshot, body, etag }
      return cached
    },
    /** The last snapshot built, if any (served when building a new one fails). */
    last(): BuiltSnapshot | undefined {
      return cached
    },
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url')

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
