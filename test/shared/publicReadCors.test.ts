import { describe, expect, test } from 'bun:test'
import { Hono } from 'hono'
import { publicReadCors } from '../../src/shared/index.ts'

const origin = 'https://dapp.example'

function app() {
  const hono = new Hono()
  hono.use(publicReadCors(['/info', /^\/broker\/[^/]+$/]))
  hono.get('/info', (c) => c.json({ feeFloorBps: 0 }))
  hono.get('/broker/:orderHash', (c) => c.json({ ok: false }, 404))
  hono.post('/broker', (c) => c.json({ ok: true }))
  hono.notFound((c) => c.text('not found', 404))
  return hono
}

/** The CORS headers of a response, for exact comparison. */
const corsHeaders = (response: Response) =>
  Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary'))

describe('publicReadCors', () => {
  test('GET of a listed path: any origin, Retry-After and ETag exposed', async () => {
    const response = await app().request('/info', { headers: { origin } })
    expect([response.status, corsHeaders(response)]).toEqual([
      200,
      { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'Retry-After,ETag' },
    ])
  })

  test('a path pattern matches, even for a 404 answer', async () => {
    const response = await app().request(`/broker/0x${'ab'.repeat(32)}`, { headers: { origin } })
    expect([response.status, response.headers.get('access-control-allow-origin')]).toEqual([404, '*'])
  })

  test('a preflight for a GET is answered 204 with the requested headers allowed', async () => {
    const response = await app().request('/info', {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-dapp' },
    })
    expect([response.status, corsHeaders(response)]).toEqual([
      204,
      {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET,HEAD',
        'access-control-allow-headers': 'x-dapp',
        'access-control-expose-headers': 'Retry-After,ETag',
        'access-control-max-age': '600',
        vary: 'Access-Control-Request-Headers',
      },
    ])
  })

  test('POST /broker and its preflight are left to the route (and the edge)', async () => {
    const preflight = await app().request('/broker', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } })
    expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([404, null])
    const post = await app().request('/broker', { method: 'POST', headers: { origin } })
    expect([post.status, post.headers.get('access-control-allow-origin')]).toEqual([200, null])
  })

  test('a POST preflight to a public read path gets no grant', async () => {
    const response = await app().request('/info', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } })
    expect([response.status, response.headers.get('access-control-allow-origin')]).toEqual([404, null])
  })

  test('other paths get nothing', async () => {
    const response = await app().request('/nope', { headers: { origin } })
    expect([response.status, response.headers.get('access-control-allow-origin')]).toEqual([404, null])
  })
})
