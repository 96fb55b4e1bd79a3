import { describe, expect, test } from 'bun:test'
import { Hono } from 'hono'
import { edgeCors } from '../../src/relayer/edge/cors.ts'

const allowed = 'https://app.example.com'
const other = 'https://evil.example.net'

function corsApp(origins: string[]) {
  let brokerCalls = 0
  const app = new Hono()
  app.use(edgeCors({ origins }))
  app.get('/info', (c) => c.json({ feeFloorBps: 0 }))
  app.post('/broker', (c) => {
    brokerCalls++
    return c.json({ ok: true })
  })
  return { app, calls: () => brokerCalls }
}

const preflight = (origin: string) => ({
  method: 'OPTIONS',
  headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
})

/** The CORS headers of a response, for exact comparison. */
const corsHeaders = (response: Response) =>
  Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary'))

describe('edgeCors', () => {
  test('GET /info is readable from any origin', async () => {
    const { app } = corsApp([allowed])
    const response = await app.request('/info', { headers: { origin: other } })
    expect(response.status).toBe(200)
    expect(corsHeaders(response)).toEqual({
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'Retry-After',
      vary: 'Origin',
    })
  })

  test('POST /broker: a listed origin is granted, its preflight allows POST with Content-Type', async () => {
    const { app } = corsApp([allowed])
    const pre = await app.request('/broker', preflight(allowed))
    expect(pre.status).toBe(204)
    expect(corsHeaders(pre)).toEqual({
      'access-control-allow-origin': allowed,
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'Content-Type',
      'access-control-expose-headers': 'Retry-After',
      'access-control-max-age': '600',
      vary: 'Origin, Access-Control-Request-Headers',
    })
    const post = await app.request('/broker', { method: 'POST', headers: { origin: allowed } })
    expect(post.status).toBe(200)
    expect(post.headers.get('access-control-allow-origin')).toBe(allowed)
  })

  test('POST /broker: another origin gets no grant, neither on the preflight nor on the request', async () => {
    const { app } = corsApp([allowed])
    const pre = await app.request('/broker', preflight(other))
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBeNull()
    expect(pre.headers.get('access-control-allow-methods')).toBeNull()
    const post = await app.request('/broker', { method: 'POST', headers: { origin: other } })
    expect(post.headers.get('access-control-allow-origin')).toBeNull()
  })

  test('POST /broker without Origin (a server-side agent) passes and gets no CORS grant', async () => {
    const { app, calls } = corsApp([allowed])
    const post = await app.request('/broker', { method: 'POST' })
    expect(post.status).toBe(200)
    expect(post.headers.get('access-control-allow-origin')).toBeNull()
    expect(calls()).toBe(1)
  })

  test('no origins listed: no browser may POST, GET /info still open', async () => {
    const { app } = corsApp([])
    expect((await app.request('/broker', preflight(allowed))).headers.get('access-control-allow-origin')).toBeNull()
    expect((await app.request('/info', { headers: { origin: allowed } })).headers.get('access-control-allow-origin')).toBe('*')
  })

  test('other paths get no CORS: an OPTIONS there falls through to the app', async () => {
    const { app } = corsApp([allowed])
    const response = await app.request('/nope', preflight(allowed))
    expect([response.status, response.headers.get('access-control-allow-origin')]).toEqual([404, null])
  })

  test('`*` grants POST /broker to every origin', async () => {
    const { app } = corsApp(['*'])
    const pre = await app.request('/broker', preflight(other))
    expect(pre.headers.get('access-control-allow-origin')).toBe('*')
    expect(pre.headers.get('access-control-allow-methods')).toBe('POST')
  })
})
