import type { Registry } from 'prom-client'
import { errorLine, listenUrl, type Logger } from '../shared/index.ts'

export type MetricsListenerOptions = { host: string; port: number; logger: Logger; surface: 'relayer' | 'indexer' }

/**
 * The Prometheus scrape endpoint on its own listener (`GET /metrics`, text
 * exposition format), apart from the public surface so it can stay on 127.0.0.1
 * or a private interface while the relayer or indexer is public.
 */
export function serveMetrics(registry: Registry, options: MetricsListenerOptions) {
  const server = Bun.serve({
    hostname: options.host,
    port: options.port,
    async fetch(request) {
      const { pathname } = new URL(request.url)
      if (request.method !== 'GET' || pathname !== '/metrics') return new Response('not found', { status: 404 })
      try {
        return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } })
      } catch (error) {
        // A gauge could not read its source (never a 500: the scrape is simply retried).
        options.logger.warn(`${options.surface} metrics: a scrape failed (${errorLine(error)})`)
        return new Response('metrics unavailable; retry shortly\n', { status: 503 })
      }
    },
  })
  const url = listenUrl(options.host, server.port as number)
  options.logger.info(`${options.surface} metrics: GET ${url}/metrics`)
  return {
    url,
    port: server.port as number,
    stop: () => server.stop(true),
  }
}

export type MetricsListener = ReturnType<typeof serveMetrics>
