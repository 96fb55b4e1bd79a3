// Operations: Prometheus registries and their listener, the RPC transport observer,
// and the self-contained status pages (docs/operations.md).
export { createIndexerMetrics, type IndexerGaugeSource, type IndexerMetrics, type ReorgSeen } from './indexerMetrics.ts'
export { type MetricsListener, serveMetrics } from './listener.ts'
export { type RecentOrdersSummary } from './recentOrders.ts'
export { createRelayerMetrics, type RelayerGaugeSources, type RelayerMetrics } from './relayerMetrics.ts'
export { observeTransport, type RpcObserver } from './rpcTransport.ts'
export { readMetricsListen, type MetricsListen } from './config.ts'
export { indexerPage, relayerPage } from './pages/index.ts'
