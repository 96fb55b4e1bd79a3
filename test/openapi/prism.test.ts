// Every status the relayer answers, through `prism proxy --errors` (docs/api.md):
// Prism forwards each request to a real relayer and fails it (a `VIOLATIONS` problem
// instead of the relayer's answer) when the request or the answer leaves the OpenAPI
// document. Three relayers on one devnet sit behind a small router (header
// `x-upstream`), so one Prism covers: a plain relayer with a fee floor (200, 400, 402,
// 422), a hardened one whose gas breaker is tripped and whose bucket is tiny (503,
// 429 on every route) and one with a dead RPC (502). Prism's own CORS answers are off
// (`--cors false`), so preflights reach the relayers. A second Prism, straight in front
// of the plain relayer and allowed long headers, shows Bun's own 431; a third, in front
// of an indexer, its status page. Answers Prism cannot route (a path or a method the
// document does not list) are checked against the document directly.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as v from 'valibot'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { openApiDocument } from '../../src/relayer/http/openapi.ts'
import { freePort } from '../../src/shared/index.ts'
import { RouteFailureSchema } from '../../src/wire/index.ts'
import { allocationOrder, signed, vaultParams } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { startTestIndexer, type TestIndexer } from '../indexer/startTestIndexer.ts'
import type { OpenApiDocument } from './support/documentBodies.ts'

const repo = join(import.meta.dir, '../..')
let work: string
let devnet: Devnet
const relayers: Record<'plain' | 'hardened' | 'deadRpc', TestRelayer> = {} as never
let router: ReturnType<typeof Bun.serve> | undefined
let indexer: TestIndexer | undefined
const prisms: Prism[] = []
let prismUrl: string
/** Straight in front of the plain relayer, Node's header limit raised above Bun's. */
let directUrl: string
let indexerPrismUrl: string
let noncesBefore: number[]
const relayerKeys = () => [devnetAccounts.relayer.address, devnetAccounts.secondRelayer.address]
const nonces = () => Promise.all(relayerKeys().map((address) => devnet.publicClient.getTransactionCount({ address })))

/**
 * Forwards to the relayer named by `x-upstream` (default: plain); `x-upstream: liar`
 * answers a GET /info body the document does not allow, to show Prism catches it.
 */
function startRouter() {
  return Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      if (request.headers.get('x-upstream') === 'liar') return Response.json({ feeFloorBps: 'ten', supportedChainIds: [], relayer: '0x' })
      const name = (request.headers.get('x-upstream') ?? 'plain') as keyof typeof relayers
      const url = new URL(request.url)
      const headers = new Headers(request.headers)
      headers.delete('host')
      return fetch(`${relayers[name].url}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body: request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer(),
      })
    },
  })
}

type Prism = { url: string; process: ReturnType<typeof Bun.spawn>; output: () => string }

/** Starts `prism proxy --errors --cors false` for `document` in front of `upstream`; resolves once it answers. */
async function startPrism(document: string, upstream: string, env: Record<string, string> = {}): Promise<Prism> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const process = Bun.spawn(
    [join(repo, 'node_modules/.bin/prism'), 'proxy', document, upstream, '--errors', '--cors', 'false', '--host', '127.0.0.1', '--port', String(port)],
    { stdout: 'pipe', stderr: 'pipe', env: { ...Bun.env, ...env } },
  )
  let output = ''
  for (const stream of [process.stdout, process.stderr] as ReadableStream<Uint8Array>[]) {
    void (async () => {
      for await (const chunk of stream) output += new TextDecoder().decode(chunk)
    })()
  }
  const prism = { url, process, output: () => output }
  prisms.push(prism)
  // Prism logs while it loads the document: wait until it answers on its port.
  const deadline = Date.now() + 60_000
  for (;;) {
    if (process.exitCode !== null) throw new Error(`prism exited ${process.exitCode}:\n${output}`)
    try {
      await fetch(`${url}/health`)
      return prism
    } catch {}
    if (Date.now() > deadline) throw new Error(`prism did not listen on ${url} within 60 s:\n${output}`)
    await Bun.sleep(100)
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'order-relay-prism-'))
  const written = Bun.spawnSync(['bun', 'scripts/write-openapi.ts', work], { cwd: repo, stdout: 'pipe', stderr: 'pipe' })
  if (written.exitCode !== 0) throw new Error(`write-openapi failed: ${written.stderr}`)
  devnet = await startDevnet()
  noncesBefore = await nonces()
  relayers.plain = await startTestRelayer(devnet, { env: { RELAYER_FEE_FLOOR_BPS: '20' } })
  relayers.hardened = await startTestRelayer(devnet, {
    env: {
      RELAYER_PK: devnetAccounts.secondRelayer.privateKey,
      RELAYER_GAS_FLOOR_WEI: (10n ** 30n).toString(),
      RELAYER_BALANCE_POLL_MS: '50',
      RELAYER_RATE_BURST: '3',
      RELAYER_RATE_PER_SEC: '0.001',
      RELAYER_CORS_ORIGINS: 'https://app.example',
    },
  })
  relayers.deadRpc = await startTestRelayer(devnet, { env: { RELAYER_RPC_URL: `http://127.0.0.1:${await freePort()}` } })
  router = startRouter()
  indexer = await startTestIndexer(devnet)
  const [viaRouter, direct, forIndexer] = await Promise.all([
    startPrism(join(work, 'relayer.openapi.json'), `http://127.0.0.1:${router.port}`),
    startPrism(join(work, 'relayer.openapi.json'), relayers.plain.url, { NODE_OPTIONS: '--max-http-header-size=131072' }),
    startPrism(join(work, 'indexer.openapi.json'), indexer.url),
  ])
  prismUrl = viaRouter.url
  directUrl = direct.url
  indexerPrismUrl = forIndexer.url
}, 120_000)

afterAll(async () => {
  for (const prism of prisms) prism.process.kill()
  await Promise.all(prisms.map((prism) => prism.process.exited))
  await indexer?.stop()
  router?.stop(true)
  for (const relayer of Object.values(relayers)) await relayer?.stop()
  await devnet?.stop()
  if (work) await rm(work, { recursive: true, force: true })
}, 60_000)

type Answer = { status: number; body: unknown; retryAfter: string | null }

/**
 * Prism's warnings (`sl-violations`), such as a status the document does not list for
 * the operation: `--errors` turns only errors into an error answer, so each is kept
 * here and the last test but one demands there were none.
 */
const warnings: string[] = []

/** A request through one of the Prisms; a warning it adds is kept in `warnings`. */
async function throughPrism(url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, init)
  const violations = response.headers.get('sl-violations')
  if (violations) warnings.push(`${init.method ?? 'GET'} ${new URL(url).pathname}: ${violations}`)
  return response
}

/** A request through Prism to the named relayer; the body as JSON when it is JSON. */
async function viaPrism(upstream: keyof typeof relayers | 'liar', method: 'GET' | 'POST', path: string, body?: unknown, raw?: string): Promise<Answer> {
  // The liar's answer is wrong on purpose (the test of Prism itself): its warnings are not kept.
  const response = await (upstream === 'liar' ? fetch : throughPrism)(`${prismUrl}${path}`, {
    method,
    headers: { 'x-upstream': upstream, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
    ...(method === 'POST' ? { body: raw ?? JSON.stringify(body) } : {}),
  })
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {}
  return { status: response.status, body: parsed, retryAfter: response.headers.get('retry-after') }
}

/** `{status, code}` of an answer, or Prism's violation report (which fails the comparison loudly). */
const outcome = (answer: Answer) => {
  const body = answer.body as { code?: string; type?: string; detail?: string }
  if (typeof body?.type === 'string' && body.type.includes('prism')) return { status: answer.status, prism: body }
  return { status: answer.status, code: body?.code }
}

describe('through prism proxy --errors: every answer is one the document describes', () => {
  test('GET /info and GET /api/openapi.json: 200', async () => {
    const info = await viaPrism('plain', 'GET', '/info')
    expect(info).toEqual({ status: 200, body: expect.objectContaining({ feeFloorBps: 20, supportedChainIds: [devnet.chainId], relayer: devnetAccounts.relayer.address }), retryAfter: null })
    const document = await viaPrism('plain', 'GET', '/api/openapi.json')
    expect([document.status, (document.body as { openapi: string }).openapi]).toEqual([200, '3.1.0'])
  })

  test('POST /broker: 200 settled', async () => {
    const answer = await viaPrism('plain', 'POST', '/broker', await signed(devnet, allocationOrder(devnet)))
    expect(outcome(answer)).toEqual({ status: 200, code: undefined })
    expect((answer.body as { ok: boolean }).ok).toBe(true)
  })

  test('POST /broker: 400 ORDERHASH_MISMATCH and 400 MALFORMED_ORDER (a well-formed body over 64 KiB)', async () => {
    const request = await signed(devnet, allocationOrder(devnet))
    expect(outcome(await viaPrism('plain', 'POST', '/broker', { ...request, orderHash: `0x${'11'.repeat(32)}` }))).toEqual({ status: 400, code: 'ORDERHASH_MISMATCH' })
    const huge = await signed(devnet, allocationOrder(devnet, { params: `${vaultParams(1n)}${'00'.repeat(33_000)}` as Hex }))
    expect(outcome(await viaPrism('plain', 'POST', '/broker', huge))).toEqual({ status: 400, code: 'MALFORMED_ORDER' })
  })

  test('POST /broker: 402 FEE_BELOW_FLOOR, 422 WOULD_REVERT (sold-out vault), 422 AUTH_EXPIRED', async () => {
    expect(outcome(await viaPrism('plain', 'POST', '/broker', await signed(devnet, allocationOrder(devnet, { feeBps: 10 }))))).toEqual({ status: 402, code: 'FEE_BELOW_FLOOR' })
    const soldOut = await signed(devnet, allocationOrder(devnet, { params: vaultParams(7n) }))
    expect(outcome(await viaPrism('plain', 'POST', '/broker', soldOut))).toEqual({ status: 422, code: 'WOULD_REVERT' })
    const expired = await signed(devnet, allocationOrder(devnet), { validBefore: 1n })
    expect(outcome(await viaPrism('plain', 'POST', '/broker', expired))).toEqual({ status: 422, code: 'AUTH_EXPIRED' })
  })

  test('POST /broker: 502 UPSTREAM_RPC (dead RPC)', async () => {
    expect(outcome(await viaPrism('deadRpc', 'POST', '/broker', await signed(devnet, allocationOrder(devnet))))).toEqual({ status: 502, code: 'UPSTREAM_RPC' })
  })

  test('hardened edge: 503 INSUFFICIENT_RELAYER_GAS, then 429 RATE_LIMITED on every route', async () => {
    const request = await signed(devnet, allocationOrder(devnet))
    expect(outcome(await viaPrism('hardened', 'POST', '/broker', request))).toEqual({ status: 503, code: 'INSUFFICIENT_RELAYER_GAS' })
    expect((await viaPrism('hardened', 'GET', '/info')).status).toBe(200)
    expect((await viaPrism('hardened', 'GET', '/api/openapi.json')).status).toBe(200)
    for (const [method, path] of [['GET', '/info'], ['GET', '/api/openapi.json'], ['POST', '/broker']] as const) {
      const answer = await viaPrism('hardened', method, path, request)
      expect(outcome(answer)).toEqual({ status: 429, code: 'RATE_LIMITED' })
      expect(Number(answer.retryAfter)).toBeGreaterThan(0)
    }
  })

  test('an answer outside the document is caught: Prism reports the violation instead of passing it on', async () => {
    const lie = await viaPrism('liar', 'GET', '/info')
    const report = lie.body as { type: string; validation: { location: string[] }[] }
    expect([lie.status, report.type]).toEqual([500, 'https://stoplight.io/prism/errors#VIOLATIONS'])
    expect(report.validation.map((each) => each.location.join('.'))).toContain('response.body.feeFloorBps')
    // And an operation the document does not have is refused, not forwarded.
    const undocumented = await viaPrism('plain', 'GET', '/broker')
    expect([undocumented.status, (undocumented.body as { type: string }).type]).toEqual([405, 'https://stoplight.io/prism/errors#NO_METHOD_MATCHED_ERROR'])
  })

  test('GET /, the status pages: the relayer\'s and the indexer\'s HTML, each through its own document', async () => {
    for (const [url, headers] of [[prismUrl, { 'x-upstream': 'plain' }], [indexerPrismUrl, {}]] as const) {
      const page = await throughPrism(`${url}/`, { headers })
      expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=UTF-8'])
      expect((await page.text()).startsWith('<!doctype html>')).toBe(true)
    }
  })

  test('CORS preflights: 204 on every public read with the hardened edge on and off; POST /broker granted only to a listed origin', async () => {
    const preflight = async (upstream: 'plain' | 'hardened', path: string, origin: string, method: string) => {
      const answer = await throughPrism(`${prismUrl}${path}`, { method: 'OPTIONS', headers: { 'x-upstream': upstream, origin, 'access-control-request-method': method } })
      return [answer.status, answer.headers.get('access-control-allow-origin')]
    }
    for (const upstream of ['plain', 'hardened'] as const) {
      for (const path of ['/info', '/health', '/ready', '/status', '/api/openapi.json', `/broker/0x${'00'.repeat(32)}`]) {
        expect([upstream, path, ...(await preflight(upstream, path, 'https://dapp.example', 'GET'))]).toEqual([upstream, path, 204, '*'])
      }
    }
    // No origins without the edge; RELAYER_CORS_ORIGINS=https://app.example on the hardened one.
    expect(await preflight('plain', '/broker', 'https://app.example', 'POST')).toEqual([204, null])
    expect(await preflight('hardened', '/broker', 'https://app.example', 'POST')).toEqual([204, 'https://app.example'])
    expect(await preflight('hardened', '/broker', 'https://other.example', 'POST')).toEqual([204, null])
    // The indexer's public reads too.
    const indexerPreflight = await throughPrism(`${indexerPrismUrl}/activity`, { method: 'OPTIONS', headers: { origin: 'https://dapp.example', 'access-control-request-method': 'GET' } })
    expect([indexerPreflight.status, indexerPreflight.headers.get('access-control-allow-origin')]).toEqual([204, '*'])
  })

  test("Bun's own 431 (no body) for headers over 16 KiB and for a URL of 10,000 query parameters", async () => {
    const longHeader = await throughPrism(`${directUrl}/info`, { headers: { 'x-padding': 'a'.repeat(20_000) } })
    expect([longHeader.status, await longHeader.text()]).toEqual([431, ''])
    const query = Array.from({ length: 10_000 }, (_, i) => `p${i}=1`).join('&')
    const longUrl = await throughPrism(`${directUrl}/info?${query}`)
    expect([longUrl.status, await longUrl.text()]).toEqual([431, ''])
  })

  test('a method a path does not list: 405 with Allow naming exactly the methods the document lists there (HEAD with GET), the body its RouteFailure', async () => {
    const document = openApiDocument('test') as OpenApiDocument
    for (const [path, item] of Object.entries(document.paths)) {
      const documented = Object.keys(item).map((method) => method.toUpperCase())
      const allow = [...documented, ...(documented.includes('GET') ? ['HEAD'] : [])].sort()
      for (const method of ['PATCH', 'DELETE', documented.includes('GET') ? 'POST' : 'GET']) {
        const answer = await fetch(`${relayers.plain.url}${path.replace('{orderHash}', `0x${'00'.repeat(32)}`)}`, { method })
        const body = v.parse(RouteFailureSchema, await answer.json())
        expect([path, method, answer.status, body.code, answer.headers.get('allow')?.split(', ').sort()]).toEqual([path, method, 405, 'METHOD_NOT_ALLOWED', allow])
        // Every route's operation lists the 405 (a preflight, `options`, never gets one).
        for (const [verb, operation] of Object.entries(item)) {
          if (verb !== 'options') expect(operation.responses['405']?.content?.['application/json']?.schema.$ref).toBe('#/components/schemas/RouteFailure')
        }
      }
    }
  })

  test('a path the document does not list: 404 NOT_FOUND, JSON, as every operation lists it', async () => {
    for (const path of ['/nope', '/info/', '/broker/0x12/extra', '/api/openapi.json/']) {
      const answer = await fetch(`${relayers.plain.url}${path}`)
      expect([path, answer.status, v.parse(RouteFailureSchema, await answer.json()).code]).toEqual([path, 404, 'NOT_FOUND'])
    }
    const document = openApiDocument('test') as OpenApiDocument
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item)) expect(operation.responses['404']?.content?.['application/json']?.schema.$ref).toBe('#/components/schemas/RouteFailure')
    }
  })

  test("HEAD answers with the GET's status and headers, Content-Length included, and no body", async () => {
    for (const path of ['/info', '/health', '/ready', '/', '/api/openapi.json', `/broker/0x${'00'.repeat(32)}`, '/broker']) {
      const get = await fetch(`${relayers.plain.url}${path}`)
      const head = await fetch(`${relayers.plain.url}${path}`, { method: 'HEAD' })
      const headers = (response: Response) => [...response.headers].filter(([name]) => name !== 'date')
      expect([path, head.status, headers(head)]).toEqual([path, get.status, headers(get)])
      expect(await head.text()).toBe('')
    }
  })

  test('no answer drew a Prism warning: every status and header was one the document lists for its operation', () => {
    expect(warnings).toEqual([])
  })

  test('money safety: exactly one transaction from the relayer keys, and it succeeded', async () => {
    const sent = (await nonces()).map((nonce, i) => nonce - (noncesBefore[i] ?? 0))
    expect(sent).toEqual([1, 0])
    expect(relayers.plain.logger.lines.filter((line) => line.startsWith('POST /broker 200'))).toEqual(['POST /broker 200 OK'])
  })
})
