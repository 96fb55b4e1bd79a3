import type { CommitResult, Removal, RewindResult, StoredHistory } from '../store/index.ts'

/**
 * The change history beside the event log (store/types.ts `StoredHistory`): which
 * history this is, the newest change's number, the floor below which it is not
 * whole, and the removals newer than the floor. The events and their numbers are the
 * event log's. Always what the store says: set from its answers, never counted here.
 *
 * @example
 * const history = createChangeHistory()
 * history.restore(state.history)
 * history.committed(await store.commit(batch))
 */
export function createChangeHistory() {
  let id = ''
  let lastSeq = 0
  let floor = 0
  let removalsFloor = 0
  let removals: Removal[] = []

  function raise(to: { floor?: number; removalsFloor?: number }) {
    const before = Math.max(floor, removalsFloor)
    floor = Math.max(floor, to.floor ?? 0)
    removalsFloor = Math.max(removalsFloor, to.removalsFloor ?? 0)
    const lowest = Math.max(floor, removalsFloor)
    if (lowest > before) removals = removals.filter((removal) => removal.seq > lowest)
  }

  return {
    get id() {
      return id
    },
    get lastSeq() {
      return lastSeq
    },
    /** Events added at or below this number may have left (retention). */
    get floor() {
      return floor
    },
    /** Removals at or below this number were forgotten. */
    get removalsFloor() {
      return removalsFloor
    },
    /** Oldest first (by number, then by the number that added each event). */
    get removals(): readonly Removal[] {
      return removals
    },
    restore(stored: StoredHistory) {
      id = stored.id
      lastSeq = stored.lastSeq
      floor = stored.floor
      removalsFloor = stored.removalsFloor
      removals = [...stored.removals]
    },
    committed(result: CommitResult) {
      lastSeq = Math.max(lastSeq, result.lastSeq)
      raise(result)
    },
    rewound(result: RewindResult) {
      removals.push(...result.removed)
      lastSeq = Math.max(lastSeq, result.seq)
      raise(result)
    },
    /** A read replica's catch-up: the removals the writer recorded since, and where the history stands now. */
    followed(newRemovals: readonly Removal[], to: { lastSeq: number; floor: number; removalsFloor: number }) {
      removals.push(...newRemovals)
      lastSeq = Math.max(lastSeq, to.lastSeq)
      raise(to)
    },
  }
}

export type ChangeHistory = ReturnType<typeof createChangeHistory>
