import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { createRpcMetrics } from './rpcMetrics.ts'

/** What the indexer gauges read at scrape time: the snapshot `GET /activity` serves. */
export type IndexerGaugeSource = () => {
  indexedThrough: string
  head: string
  lagBlocks: number
  stale: boolean
  events: readonly { name: string }[]
}

export type ReorgSeen = { at: string; forkPoint: string; depth: number }

export const reorgDepthBuckets = [1, 2, 4, 8, 16, 32, 64, 128, 512]

/**
 * The indexer's Prometheus metrics (docs/operations.md lists each one): sync
 * position, lag and staleness read from the current snapshot at scrape time;
 * reorgs as reported by the syncer; RPC calls by method and the last
 * `eth_getLogs` range seen on the transport.
 */
export function createIndexerMetrics(snapshot: IndexerGaugeSource) {
  const registry = new Registry()
  const registers = [registry]
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read())
      },
    })
  gauge('order_relay_indexer_indexed_through', 'Highest block whose events are indexed.', () => Number(snapshot().indexedThrough))
  gauge('order_relay_indexer_head_block', 'Chain head as last read from the node.', () => Number(snapshot().head))
  gauge('order_relay_indexer_lag_blocks', 'Blocks between the head and indexedThrough.', () => snapshot().lagBlocks)
  gauge('order_relay_indexer_stale', '1 while GET /activity reports stale: true, else 0.', () => (snapshot().stale ? 1 : 0))
  new Gauge({
    name: 'order_relay_indexer_events_held',
    help: 'Events held in the served snapshot, by event name.',
    labelNames: ['event'],
    registers,
    collect() {
      this.reset()
      const counts = new Map<string, number>()
      for (const event of snapshot().events) counts.set(event.name, (counts.get(event.name) ?? 0) + 1)
      for (const [event, count] of counts) this.set({ event }, count)
    },
  })
  const reorgs = new Counter({ name: 'order_relay_indexer_reorgs_total', help: 'Reorgs detected (indexed blocks that left the chain).', registers })
  const depth = new Histogram({ name: 'order_relay_indexer_reorg_depth_blocks', help: 'Depth of each reorg: indexed blocks rewound.', buckets: reorgDepthBuckets, registers })
  const range = new Gauge({ name: 'order_relay_indexer_get_logs_range_blocks', help: 'Block range of the last eth_getLogs request (adapts to what the node accepts).', registers })
  let lastReorg: ReorgSeen | undefined

  const rpc = createRpcMetrics(registry, {
    request(method, params) {
      if (method !== 'eth_getLogs' || !Array.isArray(params)) return
      const filter = params[0] as { fromBlock?: unknown; toBlock?: unknown } | undefined
      if (typeof filter?.fromBlock === 'string' && typeof filter.toBlock === 'string' && filter.toBlock.startsWith('0x')) {
        range.set(Number(BigInt(filter.toBlock) - BigInt(filter.fromBlock) + 1n))
      }
    },
    error() {},
  })

  return {
    registry,
    rpc,
    /** Called by the syncer when it rewinds: `depth` indexed blocks above `forkPoint` left the chain. */
    reorg(forkPoint: bigint, blocks: number) {
      reorgs.inc()
      depth.observe(blocks)
      lastReorg = { at: new Date().toISOString(), forkPoint: forkPoint.toString(), depth: blocks }
    },
    lastReorg: () => lastReorg,
  }
}

export type IndexerMetrics = ReturnType<typeof createIndexerMetrics>
