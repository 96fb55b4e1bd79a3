// The metrics listener: GET /metrics only, and a failed scrape is a 503, never a 500.
import { expect, test } from 'bun:test'
import { Gauge, Registry } from 'prom-client'
import { serveMetrics } from '../../src/metrics/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'

test('a scrape whose gauge cannot read its source answers 503, not 500, and logs it', async () => {
  const registry = new Registry()
  new Gauge({
    name: 'order_relay_test_broken',
    help: 'throws at scrape time',
    registers: [registry],
    collect() {
      throw new Error('snapshot unavailable')
    },
  })
  const logger = createMemoryLogger()
  const listener = serveMetrics(registry, { host: '127.0.0.1', port: 0, logger, surface: 'indexer' })
  try {
    const response = await fetch(`${listener.url}/metrics`)
    expect(response.status).toBe(503)
    expect(await response.text()).toBe('metrics unavailable; retry shortly\n')
    expect((await fetch(`${listener.url}/`)).status).toBe(404)
    expect((await fetch(`${listener.url}/metrics`, { method: 'POST' })).status).toBe(404)
    expect(logger.lines).toEqual([`indexer metrics: GET ${listener.url}/metrics`, 'warn: indexer metrics: a scrape failed (snapshot unavailable)'])
  } finally {
    listener.stop()
  }
})
