import { Hono } from 'hono'
import { indexerPage, type IndexerMetrics } from '../../metrics/index.ts'
import type { IndexerStatus } from '../../wire/index.ts'
import type { IndexerConfig } from '../config.ts'
import type { SnapshotCache } from '../snapshot.ts'

/** Blocks below the head whose events the status page counts by name. */
export const recentBlocks = 100n

/**
 * `GET /status` (JSON) and the status page `GET /` that polls it: sync progress,
 * lag, staleness, events by name over the last 100 blocks and the last reorg.
 */
export function indexerOperationsRoutes(config: IndexerConfig, snapshots: SnapshotCache, metrics: IndexerMetrics) {
  const routes = new Hono()
  routes.get('/status', (c) => {
    const { snapshot } = snapshots.current()
    const head = BigInt(snapshot.head)
    const fromBlock = head >= recentBlocks ? head - recentBlocks + 1n : 0n
    const byName: Record<string, number> = {}
    for (const event of snapshot.events) if (BigInt(event.blockNumber) >= fromBlock) byName[event.name] = (byName[event.name] ?? 0) + 1
    const status: IndexerStatus = {
      chainId: config.chainId,
      deployedAt: snapshot.deployedAt,
      indexedThrough: snapshot.indexedThrough,
      head: snapshot.head,
      lagBlocks: snapshot.lagBlocks,
      stale: snapshot.stale,
      truncated: snapshot.truncated,
      eventsHeld: snapshot.events.length,
      recentEvents: { fromBlock: fromBlock.toString(), byName },
      lastReorg: metrics.lastReorg() ?? null,
    }
    c.header('Cache-Control', 'no-store')
    return c.json(status)
  })
  routes.get('/', (c) => c.html(indexerPage))
  return routes
}
