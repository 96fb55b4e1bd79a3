import { Counter, Gauge, type Registry } from 'prom-client'

/** What a replica's shared state exposes to the metrics at scrape time. */
export type SharedStateSource = { readonly refused: number; readonly state: { readonly whole: boolean } }

/**
 * The shared state's metrics (relayer replicas, docs/scaling.md), registered once a
 * relayer has RELAYER_REDIS_URL (absent otherwise, as the Redis gauges are):
 * `order_relay_relayer_shared_state_whole` (1 while new orders are taken),
 * `order_relay_relayer_shared_state_lost_total` (losses of shared state found: a new
 * epoch, or this replica's claims gone) and
 * `order_relay_relayer_shared_state_refusals_total` (orders refused meanwhile).
 */
export function createSharedStateMetrics(registry: Registry) {
  const registers = [registry]
  let source: SharedStateSource | undefined
  let metrics: { lost: Counter } | undefined
  const register = () =>
    (metrics ??= (() => {
      new Gauge({
        name: 'order_relay_relayer_shared_state_whole',
        help: '1 while the shared state in Redis is whole and new orders are taken; 0 while Redis does not answer or the replicas re-publish after it lost state.',
        registers,
        collect() {
          if (source) this.set(source.state.whole ? 1 : 0)
        },
      })
      new Counter({
        name: 'order_relay_relayer_shared_state_refusals_total',
        help: 'Orders refused (502 UPSTREAM_RPC) because the shared state was not whole.',
        registers,
        collect() {
          if (!source) return
          this.reset()
          this.inc(source.refused)
        },
      })
      return {
        lost: new Counter({ name: 'order_relay_relayer_shared_state_lost_total', help: 'Times the shared state was found lost (a new epoch in Redis, or claims of this replica gone before their release).', registers }),
      }
    })())
  return {
    use(replicas: SharedStateSource) {
      source = replicas
      register()
    },
    /** For the shared state: a loss found (the gauge reads the state itself). */
    hooks: {
      lost: () => register().lost.inc(),
    },
  }
}
