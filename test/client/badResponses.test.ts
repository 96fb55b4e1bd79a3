// SPEC.md 4.3: a non-JSON or unexpected relayer response surfaces as a SubmitError
// `BAD_RESPONSE`; no answer at all is `NETWORK`. Against servers that are not (quite)
// relayers, on real sockets.
import { afterAll, describe, expect, test } from 'bun:test'
import { createRelayClient, SubmitError } from 'order-relay/client'
import { freePort } from '../../src/shared/index.ts'
import type { RelayRequest } from '../../src/wire/index.ts'
import { startFakeServer, startSilentServer } from './support/fakeRelayer.ts'

const servers: { stop(): void }[] = []
afterAll(() => {
  for (const server of servers) server.stop()
})

function serve(answer: (request: Request) => Response | Promise<Response>) {
  const server = startFakeServer(answer)
  servers.push(server)
  return createRelayClient({ url: server.url })
}

const html = (status: number) => new Response('<!doctype html><html><body>Welcome to nginx!</body></html>', { status, headers: { 'content-type': 'text/html; charset=utf-8' } })
const json = (status: number, body: unknown, headers: Record<string, string> = {}) => Response.json(body, { status, headers })

// The client sends whatever it is given; these servers never look at it.
const request = {
  order: { consumer: `0x${'11'.repeat(20)}`, adapter: `0x${'22'.repeat(20)}`, params: '0x', payToken: `0x${'33'.repeat(20)}`, payee: `0x${'44'.repeat(20)}`, amount: '1', nonce: '1', feeBps: 0 },
  signature: { v: 27, r: `0x${'ab'.repeat(32)}`, s: `0x${'cd'.repeat(32)}` },
  validAfter: '0',
  validBefore: '99999999999',
  chainId: 421614,
} satisfies RelayRequest

async function failureOf(call: Promise<unknown>) {
  try {
    await call
  } catch (error) {
    expect(error).toBeInstanceOf(SubmitError)
    const { code, status, message, retryAfter } = error as SubmitError
    return { code, status, message, retryAfter }
  }
  throw new Error('expected a SubmitError')
}

describe('BAD_RESPONSE', () => {
  test('an HTML page answering 200 (a placeholder site at the URL)', async () => {
    const client = serve(() => html(200))
    expect(await failureOf(client.broker(request))).toEqual({
      code: 'BAD_RESPONSE',
      status: 200,
      message: 'POST /broker: answered 200 with a body that is not JSON (text/html; charset=utf-8); is this URL a relayer?',
      retryAfter: undefined,
    })
    expect(await failureOf(client.info())).toEqual({
      code: 'BAD_RESPONSE',
      status: 200,
      message: 'GET /info: answered 200 with a body that is not JSON (text/html; charset=utf-8); is this URL a relayer?',
      retryAfter: undefined,
    })
  })

  test("a proxy's HTML error page (502)", async () => {
    const client = serve(() => html(502))
    expect(await failureOf(client.broker(request))).toMatchObject({ code: 'BAD_RESPONSE', status: 502 })
  })

  test('an empty body', async () => {
    const client = serve(() => new Response(null, { status: 204 }))
    expect(await failureOf(client.broker(request))).toMatchObject({ code: 'BAD_RESPONSE', status: 204 })
  })

  test('200 with JSON that is not a RelaySuccess', async () => {
    const client = serve(() => json(200, { ok: true, txHash: '0x1234' }))
    expect(await failureOf(client.broker(request))).toEqual({
      code: 'BAD_RESPONSE',
      status: 200,
      message:
        'POST /broker: answered 200 with unexpected JSON (txHash: must be 32 bytes of hex: 0x followed by 64 hex digits; orderHash: missing; brokered: missing; receipt: missing)',
      retryAfter: undefined,
    })
  })

  test('200 with JSON that is not a RelayerInfo', async () => {
    const client = serve(() => json(200, { feeFloorBps: '0', supportedChainIds: [421614], relayer: `0x${'11'.repeat(20)}` }))
    expect(await failureOf(client.info())).toEqual({
      code: 'BAD_RESPONSE',
      status: 200,
      message: 'GET /info: answered 200 with unexpected JSON (feeFloorBps: must be an integer (feeFloorBps))',
      retryAfter: undefined,
    })
  })

  test('a failure body with a code no relayer answers', async () => {
    const client = serve(() => json(400, { ok: false, code: 'TEAPOT', message: 'short and stout' }))
    expect(await failureOf(client.broker(request))).toMatchObject({ code: 'BAD_RESPONSE', status: 400 })
  })

  test('a relayer code with the wrong HTTP status', async () => {
    const client = serve(() => json(500, { ok: false, code: 'WOULD_REVERT', message: 'would revert: FeeTooHigh()' }))
    expect(await failureOf(client.broker(request))).toEqual({
      code: 'BAD_RESPONSE',
      status: 500,
      message: 'POST /broker: answered 500 with code WOULD_REVERT, which belongs to HTTP 422',
      retryAfter: undefined,
    })
  })

  test("the indexer's plain-text 404 (the wrong URL)", async () => {
    const client = serve(() => new Response('not found', { status: 404 }))
    expect(await failureOf(client.info())).toMatchObject({ code: 'BAD_RESPONSE', status: 404 })
  })
})

describe('edge answers (SPEC.md 7.2), parsed', () => {
  test('RATE_LIMITED with Retry-After in seconds', async () => {
    const client = serve(() => json(429, { ok: false, code: 'RATE_LIMITED', message: 'slow down' }, { 'retry-after': '7' }))
    expect(await failureOf(client.broker(request))).toEqual({ code: 'RATE_LIMITED', status: 429, message: 'slow down', retryAfter: 7 })
  })

  test('RATE_LIMITED with Retry-After as an HTTP date', async () => {
    const at = new Date(Date.now() + 30_000).toUTCString()
    const client = serve(() => json(429, { ok: false, code: 'RATE_LIMITED', message: 'slow down' }, { 'retry-after': at }))
    const failure = await failureOf(client.broker(request))
    expect(failure.code).toBe('RATE_LIMITED')
    expect(failure.retryAfter).toBeGreaterThanOrEqual(28)
    expect(failure.retryAfter).toBeLessThanOrEqual(30)
  })

  test('SERVER_BUSY without Retry-After; the edge breaker 503', async () => {
    const busy = serve(() => json(429, { ok: false, code: 'SERVER_BUSY', message: 'busy' }))
    expect(await failureOf(busy.broker(request))).toEqual({ code: 'SERVER_BUSY', status: 429, message: 'busy', retryAfter: undefined })
    const paused = serve(() => json(503, { ok: false, code: 'INSUFFICIENT_RELAYER_GAS', message: 'paused' }))
    expect(await failureOf(paused.broker(request))).toEqual({ code: 'INSUFFICIENT_RELAYER_GAS', status: 503, message: 'paused', retryAfter: undefined })
  })
})

describe('NETWORK', () => {
  test('nothing listens at the URL', async () => {
    const url = `http://127.0.0.1:${await freePort()}`
    const client = createRelayClient({ url })
    expect(await failureOf(client.broker(request))).toEqual({
      code: 'NETWORK',
      status: 0,
      message: `POST /broker at ${url}: could not reach the relayer; retry or try another relayer`,
      retryAfter: undefined,
    })
  })

  test('a server that never answers, with timeoutMs', async () => {
    const silent = startSilentServer()
    servers.push(silent)
    const client = createRelayClient({ url: silent.url, timeoutMs: 200 })
    const started = Date.now()
    expect(await failureOf(client.info())).toEqual({
      code: 'NETWORK',
      status: 0,
      message: `GET /info at ${silent.url}: no answer within 200 ms; retry or try another relayer`,
      retryAfter: undefined,
    })
    expect(Date.now() - started).toBeLessThan(2_000)
  })
})

test('the fetch option is the one used', async () => {
  const seen: string[] = []
  const client = createRelayClient({
    url: 'http://relayer.invalid',
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      seen.push(`${init?.method} ${String(input)}`)
      return Response.json({ feeFloorBps: 5, supportedChainIds: [46630], relayer: `0x${'11'.repeat(20)}` })
    }) as typeof fetch,
  })
  expect(await client.info()).toEqual({ feeFloorBps: 5, supportedChainIds: [46630], relayer: `0x${'11'.repeat(20)}` })
  expect(seen).toEqual(['GET http://relayer.invalid/info'])
})
