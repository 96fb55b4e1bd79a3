// `bun scripts/profile-rejections.ts [--n N] [--only NAME]`: the µs a rejection costs
// in-process (app.fetch, no sockets), layer by layer, beside a bare hono route doing
// `await c.req.json()` and a constant 400. No devnet: the relayer is built against an
// RPC URL it never calls (a rejection never reaches the node). Run it under
// `bun --cpu-prof` to see where one stage's time goes.
import { Hono } from 'hono'
import { parseArgs } from 'node:util'
import { createRelayerApp } from '../src/relayer/http/app.ts'
import { createRequestDrain } from '../src/relayer/http/requestDrain.ts'
import { readJsonBody } from '../src/relayer/http/readJsonBody.ts'
import { validateRequest } from '../src/relayer/steps/validateRequest.ts'
import { checkOrderHash } from '../src/relayer/steps/checkOrderHash.ts'
import { checkRequest, orderPipeline } from '../src/relayer/pipeline.ts'
import { RelayError } from '../src/relayer/errors.ts'
import { silentLogger } from '../src/shared/index.ts'
import { rejectingRelayer, rejectionBodies } from './bench/lib/rejectionFixtures.ts'

const { values } = parseArgs({ args: Bun.argv.slice(2), options: { n: { type: 'string' }, rounds: { type: 'string' }, only: { type: 'string' } } })
const n = Number(values.n ?? 30_000)
const rounds = Number(values.rounds ?? 5)

const bodies = await rejectionBodies()
const relayer = await rejectingRelayer(silentLogger)

const post = (body: string) =>
  new Request('http://relayer/broker', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(body.length) }, body })

type Fetch = (request: Request) => Response | Promise<Response>

/** Mean µs per request of `fetch` over `n` requests, the least of `rounds` rounds taken in turn with the other lines (after a warm-up); checks the status. */
const lines: { name: string; run: () => Promise<number> }[] = []
function time(name: string, fetch: Fetch, body: string, status: number) {
  if (values.only && !name.includes(values.only)) return
  lines.push({
    name,
    async run() {
      const first = await fetch(post(body))
      if (first.status !== status) throw new Error(`${name}: status ${first.status}, expected ${status}: ${await first.text()}`)
      const started = performance.now()
      for (let i = 0; i < n; i++) {
        const response = await fetch(post(body))
        await response.arrayBuffer()
      }
      return ((performance.now() - started) * 1000) / n
    },
  })
}

// The bench's baseline route.
const bare = new Hono()
const failure = { ok: false, code: 'MALFORMED_ORDER', message: 'malformed request: order.amount expected a decimal string' }
bare.post('/broker', async (c) => {
  await c.req.json()
  return c.json(failure, 400)
})

// Bare plus our body reader.
const reader = new Hono()
reader.post('/broker', async (c) => {
  await readJsonBody(c.req.raw)
  return c.json(failure, 400)
})

// Reader plus the checks that need no I/O, answered from their refusal.
const steps = new Hono()
steps.post('/broker', async (c) => {
  const checked = checkRequest(relayer.context, await readJsonBody(c.req.raw))
  return checked instanceof RelayError ? c.json(checked.toBody(), checked.status as 400) : c.json(failure, 400)
})

// The relayer's POST /broker route without operations (metrics) and without the drain tracker.
const plain = createRelayerApp(relayer.context, { version: 'profile', pipeline: orderPipeline(relayer.context) }).postBroker
const tracked = createRelayerApp(relayer.context, { version: 'profile', pipeline: orderPipeline(relayer.context), drain: createRequestDrain() }).postBroker

const pure = (name: string, f: () => unknown) => {
  if (values.only && !name.includes(values.only)) return
  lines.push({
    name,
    async run() {
      const started = performance.now()
      for (let i = 0; i < n; i++) f()
      return ((performance.now() - started) * 1000) / n
    },
  })
}
const parsedMalformed = JSON.parse(bodies.malformed)
const parsedBelow = JSON.parse(bodies.belowFloor)
const validBelow = validateRequest(relayer.context, parsedBelow)
if (validBelow instanceof RelayError) throw validBelow

pure('JSON.parse (belowFloor body)', () => JSON.parse(bodies.belowFloor))
pure('validateRequest malformed (refused)', () => validateRequest(relayer.context, parsedMalformed))
pure('validateRequest belowFloor', () => validateRequest(relayer.context, parsedBelow))
pure('checkOrderHash', () => checkOrderHash(validBelow))
for (const [label, body, status] of [
  ['malformed', bodies.malformed, 400],
  ['belowFloor', bodies.belowFloor, 402],
] as const) {
  time(`bare hono json() + 400 (${label} body)`, bare.fetch, body, 400)
  time(`+ readJsonBody (${label})`, reader.fetch, body, 400)
  time(`+ validate, hash, floor (${label})`, steps.fetch, body, status === 400 ? 400 : 402)
  time(`relayer route, no metrics, no track (${label})`, plain, body, status)
  time(`relayer route with drain, no metrics (${label})`, tracked, body, status)
  time(`relayer route as served (${label})`, relayer.routes['/broker'].POST, body, status)
  time(`relayer route through hono, as app.request (${label})`, relayer.app.fetch, body, status)
}
for (const line of lines) for (let i = 0; i < 3; i++) await line.run()
const best = lines.map(() => Number.POSITIVE_INFINITY)
for (let round = 0; round < rounds; round++) {
  for (const [i, line] of lines.entries()) best[i] = Math.min(best[i]!, await line.run())
}
console.log(`µs per request (or call), the least of ${rounds} rounds of ${n}; load ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`)
for (const [i, line] of lines.entries()) console.log(`${line.name.padEnd(50)} ${best[i]!.toFixed(2).padStart(7)}`)
relayer.context.journal.close()
