import type { Logger } from '../../shared/index.ts'

/**
 * Whether another process is signing with this relayer's key (one key, two journals: a
 * set-up the relayer does not support). Each sign of it (a nonce taken by a tx the journal
 * does not know, a broadcast refused for a nonce another tx holds, an order settled by a
 * tx from this key the journal did not sign) is reported here; while one was seen within
 * `quietMs`, the relayer takes no new order (503 INSUFFICIENT_RELAYER_GAS, `/ready` fails
 * with the reason), so two processes cannot each send the same order at their own nonce
 * and pay for the loser's revert. It takes orders again once no sign has come for
 * `quietMs` (RELAYER_KEY_CONFLICT_QUIET_MS), or when restarted.
 */
export function createKeyGuard(options: { logger: Logger; quietMs: number; now?: () => number }) {
  const { logger } = options
  const now = options.now ?? Date.now
  let last: { at: number; what: string; since: number } | undefined

  return {
    /** A sign that another process signs with this key: `what` says which, for the log and the answers. */
    report(what: string) {
      const at = now()
      const fresh = !last || at - last.at >= options.quietMs
      last = { at, what, since: fresh ? at : last!.since }
      if (fresh) {
        logger.error(
          `another process is signing with this relayer's key: ${what}; this relayer takes no new orders until it has seen no such tx for ${Math.round(options.quietMs / 1000)} s (RELAYER_KEY_CONFLICT_QUIET_MS), or is restarted; run one relayer process per gas key`,
        )
      }
    },
    /** Why no new order is taken now, or undefined when none was reported within `quietMs`. */
    conflict(): string | undefined {
      if (!last || now() - last.at >= options.quietMs) return undefined
      const until = new Date(last.at + options.quietMs).toISOString()
      return `another process is signing with this relayer's key (${last.what}); it takes no new orders until ${until} unless that process shows itself again; run one relayer process per gas key`
    },
  }
}

export type KeyGuard = ReturnType<typeof createKeyGuard>
