import { describe, expect, test } from 'bun:test'
import { Hono } from 'hono'
import { rateLimit } from '../../src/relayer/edge/rateLimit.ts'
import { createTokenBuckets } from '../../src/relayer/edge/tokenBucket.ts'

function limitedApp(options: { ratePerSec: number; burst: number; trustProxy: boolean; maxBuckets?: number }) {
  const buckets = createTokenBuckets(options)
  const app = new Hono()
  app.use(rateLimit({ buckets, ...options }).middleware)
  app.get('/info', (c) => c.json({ ok: true }))
  app.post('/broker', (c) => c.json({ ok: true }))
  app.options('/broker', (c) => c.body(null, 204))
  return { app, buckets }
}

const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } })

describe('rateLimit', () => {
  test('over the burst: 429 RATE_LIMITED with Retry-After in whole seconds', async () => {
    const { app } = limitedApp({ ratePerSec: 0.5, burst: 2, trustProxy: true })
    expect((await app.request('/info', from('198.51.100.1'))).status).toBe(200)
    expect((await app.request('/broker', { method: 'POST', ...from('198.51.100.1') })).status).toBe(200)
    const refused = await app.request('/info', from('198.51.100.1'))
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('2')
    expect(await refused.json()).toEqual({
      ok: false,
      code: 'RATE_LIMITED',
      message: 'rate limit exceeded for this client (0.5 requests/s, burst 2); retry after 2 s',
    })
    // Another client is not affected.
    expect((await app.request('/info', from('198.51.100.2'))).status).toBe(200)
  })

  test('preflights are never counted', async () => {
    const { app } = limitedApp({ ratePerSec: 1, burst: 1, trustProxy: true })
    for (let i = 0; i < 5; i++) expect((await app.request('/broker', { method: 'OPTIONS', ...from('198.51.100.3') })).status).toBe(204)
    expect((await app.request('/info', from('198.51.100.3'))).status).toBe(200)
  })

  test('without trustProxy, X-Forwarded-For cannot buy a fresh bucket', async () => {
    const { app } = limitedApp({ ratePerSec: 1, burst: 1, trustProxy: false })
    expect((await app.request('/info', from('198.51.100.4'))).status).toBe(200)
    expect((await app.request('/info', from('198.51.100.5'))).status).toBe(429)
  })

  test('100k distinct forwarded addresses: the bucket map stays bounded', async () => {
    const { app, buckets } = limitedApp({ ratePerSec: 5, burst: 20, trustProxy: true, maxBuckets: 10_000 })
    let largest = 0
    for (let i = 0; i < 100_000; i++) {
      const response = await app.request('/info', from(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`))
      if (response.status !== 200) throw new Error(`request ${i}: ${response.status}`)
      largest = Math.max(largest, buckets.size)
    }
    expect(largest).toBe(10_000)
  }, 60_000)
})
