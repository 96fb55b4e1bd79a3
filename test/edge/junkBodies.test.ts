// SPEC.md 4.5 puts the per-client bucket first: a flood of junk bodies is
// rate-limited like any other request. The bucket is taken before the body
// is read, so with RELAYER_RATE_PER_SEC=1 RELAYER_RATE_BURST=2 six malformed-JSON
// POST /broker bodies in a row are two 400s, then 429s; a 429 leaves its connection
// usable (its unread body does not spill into the next request).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { offlineRelayer } from '../helpers/offlineRelayer.ts'
import { rawRequest } from './support/rawHttp.ts'
import { waitFor } from '../helpers/waitFor.ts'

const { relayer, logger } = offlineRelayer({ RELAYER_RATE_PER_SEC: '1', RELAYER_RATE_BURST: '2' })
let server: ReturnType<typeof Bun.serve>
let url: string

beforeAll(() => {
  server = Bun.serve({ hostname: '127.0.0.1', port: 0, routes: relayer.routes, fetch: relayer.app.fetch })
  url = `http://127.0.0.1:${server.port}`
})
afterAll(() => server.stop(true))

const junk = (body: string) => fetch(`${url}/broker`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })

test('six malformed-JSON POST /broker in a row with RELAYER_RATE_BURST=2: two 400s, then 429 RATE_LIMITED with Retry-After', async () => {
  const answers: { status: number; code: unknown; retryAfter: string | null }[] = []
  for (let i = 0; i < 6; i++) {
    const response = await junk(`{"order": ${'['.repeat(i + 1)}`)
    answers.push({ status: response.status, code: ((await response.json()) as { code?: unknown }).code, retryAfter: response.headers.get('retry-after') })
  }
  expect(answers).toEqual([
    { status: 400, code: 'MALFORMED_ORDER', retryAfter: null },
    { status: 400, code: 'MALFORMED_ORDER', retryAfter: null },
    ...Array.from({ length: 4 }, () => ({ status: 429, code: 'RATE_LIMITED', retryAfter: '1' })),
  ])
  const access = logger.lines.filter((line) => line.startsWith('POST /broker '))
  expect(access).toEqual(['POST /broker 400 MALFORMED_ORDER', 'POST /broker 400 MALFORMED_ORDER', ...Array.from({ length: 4 }, () => 'POST /broker 429 RATE_LIMITED')])
})

test('a body left unread by a 429 does not spill into the next request on the same connection', async () => {
  // The bucket is empty (the test above); the refill is 1 a second.
  const body = '{"not": "an order"}'
  const request = (close: boolean) =>
    `POST /broker HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n${close ? 'Connection: close\r\n' : ''}\r\n${body}`
  const connection = rawRequest(url, request(false) + request(true))
  // The second request asks the server to close: both answers are in once it has.
  await waitFor('the server to answer both requests and close', () => connection.closed, 10_000)
  const answer = await connection.answer(1_000)
  const statuses = [...answer.text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => Number(match[1]))
  expect(statuses).toHaveLength(2)
  for (const status of statuses) expect([400, 429]).toContain(status)
  expect(answer.text).not.toContain('not found')
})
