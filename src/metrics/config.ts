import type { createEnvReader } from '../shared/index.ts'

/** Where the metrics listener binds; undefined when metrics are off. */
export type MetricsListen = { host: string; port: number } | undefined

export const defaultMetricsHost = '127.0.0.1'

/**
 * `<PREFIX>_METRICS_PORT` turns the listener on (0 picks a free port);
 * `<PREFIX>_METRICS_HOST` moves it off 127.0.0.1. A host without a port is a
 * configuration problem rather than silently nothing.
 */
export function readMetricsListen(read: ReturnType<typeof createEnvReader>, prefix: 'RELAYER' | 'INDEXER'): MetricsListen {
  const port = read.integer(`${prefix}_METRICS_PORT`, undefined, 0, 65535)
  const host = read.string(`${prefix}_METRICS_HOST`, defaultMetricsHost) ?? defaultMetricsHost
  if (port === undefined) {
    if (read.has(`${prefix}_METRICS_HOST`)) read.problem(`${prefix}_METRICS_HOST is set but ${prefix}_METRICS_PORT is not: set the port to turn metrics on`)
    return undefined
  }
  return { host, port }
}
