import type { Database } from 'bun:sqlite'

/** The journal's deletion of what it has stopped needing (run on a schedule by pruning.ts). */
export function createPruneResolved(db: Database) {
  return {
    /**
     * Deletes what is older than `before` (ms since epoch) and not needed any more: slots
     * resolved before then (seen mined, or sent, before it), with their txs, and the reverts
     * kept for cool-downs. Pending slots stay whatever their age. In commits of `perCommit`
     * slots, yielding between them. Returns how many slots and reverts went.
     */
    async prune(before: number, perCommit = 5_000): Promise<{ slots: number; reverts: number }> {
      let slots = 0
      const pruneSome = db.transaction((limit: number): number => {
        const nonces = db
          .query<{ nonce: number }, [number, number]>("SELECT nonce FROM slots WHERE status != 'pending' AND COALESCE(mined_at, sent_at) < ? ORDER BY nonce LIMIT ?")
          .all(before, limit)
          .map((row) => row.nonce)
        if (nonces.length === 0) return 0
        const list = JSON.stringify(nonces)
        db.query('DELETE FROM txs WHERE nonce IN (SELECT value FROM json_each(?))').run(list)
        db.query('DELETE FROM slots WHERE nonce IN (SELECT value FROM json_each(?))').run(list)
        return nonces.length
      })
      for (;;) {
        const pruned = pruneSome(perCommit)
        slots += pruned
        if (pruned < perCommit) break
        await new Promise((resolve) => setImmediate(resolve))
      }
      const reverts = db.query('DELETE FROM reverts WHERE at < ?').run(before).changes
      return { slots, reverts }
    },
  }
}
