// The edge's CORS (SPEC.md 4.5 item 4) through the relayer's own app: preflights and
// reads go through hono's middleware, `POST /broker` is answered outside hono with the
// same headers (checked against hono/cors itself). The browser half is browser.test.ts.
import { describe, expect, test } from 'bun:test'
import { Hono } from 'hono'
import { createEdgeCors } from '../../src/relayer/edge/cors.ts'
import { offlineRelayer } from '../helpers/offlineRelayer.ts'

const allowed = 'https://app.example.com'
const other = 'https://evil.example.net'

/** The relayer's app with the edge on and these origins; a POST with `{}` reaches the checks (MALFORMED_ORDER). */
function corsApp(origins: string[]) {
  const { relayer } = offlineRelayer({ RELAYER_HARDENED: '1', ...(origins.length ? { RELAYER_CORS_ORIGINS: origins.join(',') } : {}) })
  return { app: relayer.app }
}

const post = (origin?: string) => ({ method: 'POST', headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) }, body: '{}' })

const preflight = (origin: string) => ({
  method: 'OPTIONS',
  headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, prefer' },
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
      'access-control-expose-headers': 'Retry-After,Location,Preference-Applied',
      vary: 'Origin',
    })
  })

  test('POST /broker: a listed origin is granted, its preflight allows POST with Content-Type and Prefer (respond-async), and a page can read Location', async () => {
    const { app } = corsApp([allowed])
    const pre = await app.request('/broker', preflight(allowed))
    expect(pre.status).toBe(204)
    expect(corsHeaders(pre)).toEqual({
      'access-control-allow-origin': allowed,
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'Content-Type,Prefer',
      'access-control-expose-headers': 'Retry-After,Location,Preference-Applied',
      'access-control-max-age': '600',
      vary: 'Origin, Access-Control-Request-Headers',
    })
    const answer = await app.request('/broker', post(allowed))
    expect(answer.status).toBe(400)
    expect(corsHeaders(answer)).toEqual({ 'access-control-allow-origin': allowed, 'access-control-expose-headers': 'Retry-After,Location,Preference-Applied', vary: 'Origin' })
  })

  test('POST /broker: another origin gets no grant, neither on the preflight nor on the request', async () => {
    const { app } = corsApp([allowed])
    const pre = await app.request('/broker', preflight(other))
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBeNull()
    expect(pre.headers.get('access-control-allow-methods')).toBeNull()
    const answer = await app.request('/broker', post(other))
    expect(answer.headers.get('access-control-allow-origin')).toBeNull()
  })

  test('POST /broker without Origin (a server-side agent) passes and gets no CORS grant', async () => {
    const { app } = corsApp([allowed])
    const answer = await app.request('/broker', post())
    expect(answer.status).toBe(400)
    expect(((await answer.json()) as { code: string }).code).toBe('MALFORMED_ORDER') // the pipeline's answer, not the edge's
    expect(answer.headers.get('access-control-allow-origin')).toBeNull()
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

  test("POST /broker's answers carry exactly the headers hono/cors gives a POST, for every kind of origin", async () => {
    for (const origins of [[allowed], ['*'], []]) {
      const { app } = corsApp(origins)
      const hono = new Hono()
      hono.use(createEdgeCors({ origins }).middleware)
      hono.post('/broker', (c) => c.json({ ok: false }, 400))
      for (const origin of [allowed, other, undefined]) {
        const ours = corsHeaders(await app.request('/broker', post(origin)))
        expect({ origins, origin, headers: ours }).toEqual({ origins, origin, headers: corsHeaders(await hono.request('/broker', post(origin))) })
      }
    }
  })
})
