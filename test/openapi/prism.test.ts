// Every status the relayer answers, through `prism proxy --errors` (docs/api.md):
// Prism forwards each request to a real relayer and fails it (a `VIOLATIONS` problem
// instead of the relayer's answer) when the request or the answer leaves the OpenAPI
// document. Three relayers on one devnet sit behind a small router (header
// `x-upstream`), so one Prism covers: a plain relayer with a fee floor (200, 400, 402,
// 422), a hardened one whose gas breaker is tripped and whose bucket is tiny (503,
// 429 on every route) and one with a dead RPC (502).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { allocationOrder, signed, vaultParams } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'

const repo = join(import.meta.dir, '../..')
let work: string
let devnet: Devnet
const relayers: Record<'plain' | 'hardened' | 'deadRpc', TestRelayer> = {} as never
let router: ReturnType<typeof Bun.serve> | undefined
let prism: ReturnType<typeof Bun.spawn> | undefined
let prismOutput = ''
let prismUrl: string
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

/** Waits until Prism answers on its port (it logs while it loads the document). */
async function waitForPrism(url: string, deadlineMs: number) {
  const deadline = Date.now() + deadlineMs
  for (;;) {
    if (prism?.exitCode !== null && prism?.exitCode !== undefined) throw new Error(`prism exited ${prism.exitCode}:\n${prismOutput}`)
    try {
      await fetch(`${url}/info`, { headers: { 'x-upstream': 'plain' } })
      return
    } catch {}
    if (Date.now() > deadline) throw new Error(`prism did not listen on ${url} within ${deadlineMs} ms:\n${prismOutput}`)
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
    },
  })
  relayers.deadRpc = await startTestRelayer(devnet, { env: { RELAYER_RPC_URL: `http://127.0.0.1:${await freePort()}` } })
  router = startRouter()
  const port = await freePort()
  prismUrl = `http://127.0.0.1:${port}`
  prism = Bun.spawn(
    [join(repo, 'node_modules/.bin/prism'), 'proxy', join(work, 'relayer.openapi.json'), `http://127.0.0.1:${router.port}`, '--errors', '--host', '127.0.0.1', '--port', String(port)],
    { stdout: 'pipe', stderr: 'pipe' },
  )
  for (const stream of [prism.stdout, prism.stderr] as ReadableStream<Uint8Array>[]) {
    void (async () => {
      for await (const chunk of stream) prismOutput += new TextDecoder().decode(chunk)
    })()
  }
  await waitForPrism(prismUrl, 60_000)
}, 120_000)

afterAll(async () => {
  prism?.kill()
  await prism?.exited
  router?.stop(true)
  for (const relayer of Object.values(relayers)) await relayer?.stop()
  await devnet?.stop()
  if (work) await rm(work, { recursive: true, force: true })
}, 60_000)

type Answer = { status: number; body: unknown; retryAfter: string | null }

/** A request through Prism to the named relayer; the body as JSON when it is JSON. */
async function viaPrism(upstream: keyof typeof relayers | 'liar', method: 'GET' | 'POST', path: string, body?: unknown, raw?: string): Promise<Answer> {
  const response = await fetch(`${prismUrl}${path}`, {
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

  test('money safety: exactly one transaction from the relayer keys, and it succeeded', async () => {
    const sent = (await nonces()).map((nonce, i) => nonce - (noncesBefore[i] ?? 0))
    expect(sent).toEqual([1, 0])
    expect(relayers.plain.logger.lines.filter((line) => line.startsWith('POST /broker 200'))).toEqual(['POST /broker 200 OK'])
  })
})
