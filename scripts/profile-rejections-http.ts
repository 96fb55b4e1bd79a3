// `bun scripts/profile-rejections-http.ts [--rounds N] [--seconds S] [--rate R]`: the server CPU a
// rejection costs over HTTP (µs per request, utime + stime of the serving process from
// /proc, median of N rounds of autocannon at 32 connections; with `--rate`, at a steady R
// requests a second over 64 connections from the bench's flood client, bench/lib/steadyClient.ts,
// as the bench's flood sends), for servers that do more and more of the relayer's work,
// each in its own process:
//   baseline  the bench's baseline route: hono, body text, JSON.parse, constant 400
//   checks    the same route running the relayer's checks (validate, orderHash, fee
//             floor) and answering their RelayFailure: the least a relayer does
//   bunRoute  the checks on a plain Bun.serve route (no hono), with the access line
//   appBare   the relayer's route without metrics, drain or edge: its shell around the
//             checks (access line, body limits and deadline)
//   appOps    the same with the metrics
//   relayer   the relayer's app as served (POST /broker on its own Bun.serve route:
//             body limits and deadline, metrics, drain, access log to /dev/null)
//   hono      the same relayer with POST /broker through its hono app (as
//             `app.request` reaches it), to show what the route saves
// `--stages a,b,…` runs some of them (always with the baseline).
// Bodies: MALFORMED_ORDER (amount "10.5") and FEE_BELOW_FLOOR (feeBps 50, floor 100).
// No chain is needed: a rejection never reaches the node. See docs/benchmarks.md.
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { Hono } from 'hono'
import { cpuSeconds } from './bench/lib/cpu.ts'
import { startFlood } from './bench/lib/floodLoad.ts'
import { rejectingRelayer, rejectionBodies } from './bench/lib/rejectionFixtures.ts'

const [mode, stage, portText] = Bun.argv.slice(2)

if (mode === 'serve') await serve(stage!, Number(portText))
else await drive()

async function serve(stage: string, port: number) {
  const { checkRequest } = await import('../src/relayer/pipeline.ts')
  const { RelayError } = await import('../src/relayer/errors.ts')
  const { createLogger } = await import('../src/shared/index.ts')
  const { createLineWriter } = await import('../src/cli/lib/lineWriter.ts')
  const out = createLineWriter((text) => process.stdout.write(text))
  const logger = createLogger((line) => out.line(line))
  const relayer = await rejectingRelayer(logger)
  const failure = { ok: false, code: 'MALFORMED_ORDER', message: 'malformed request: order.amount expected a decimal string' }
  const refusal = (body: unknown) => {
    const checked = checkRequest(relayer.context, body)
    return checked instanceof RelayError ? checked : undefined
  }
  const hostname = '127.0.0.1'
  if (stage === 'baseline') {
    const app = new Hono()
    app.post('/broker', async (c) => {
      JSON.parse(await c.req.text())
      return c.json(failure, 400)
    })
    Bun.serve({ hostname, port, fetch: app.fetch })
  } else if (stage === 'checks') {
    const app = new Hono()
    app.post('/broker', async (c) => {
      const refused = refusal(JSON.parse(await c.req.text()))
      return refused ? c.json(refused.toBody(), refused.status as 400) : c.json(failure, 400)
    })
    Bun.serve({ hostname, port, fetch: app.fetch })
  } else if (stage === 'bunRoute') {
    const headers = { 'content-type': 'application/json' }
    Bun.serve({
      hostname,
      port,
      routes: {
        '/broker': {
          POST: async (request) => {
            const refused = refusal(JSON.parse(await request.text()))
            const status = refused?.status ?? 400
            logger.info(`POST /broker ${status} ${refused?.code ?? '-'}`)
            return new Response(JSON.stringify(refused?.toBody() ?? failure), { status, headers })
          },
        },
      },
    })
  } else if (stage === 'appBare' || stage === 'appOps') {
    const { createRelayerApp } = await import('../src/relayer/http/app.ts')
    const { orderPipeline } = await import('../src/relayer/pipeline.ts')
    const { app, routes } = createRelayerApp(relayer.context, { version: 'profile', pipeline: orderPipeline(relayer.context), ...(stage === 'appOps' ? { operations: relayer.operations } : {}) })
    Bun.serve({ hostname, port, routes, fetch: app.fetch })
  } else if (stage === 'relayer') Bun.serve({ hostname, port, routes: relayer.routes, fetch: relayer.app.fetch })
  else if (stage === 'hono') Bun.serve({ hostname, port, fetch: relayer.app.fetch })
  else throw new Error(`unknown stage ${stage}`)
}

async function drive() {
  const { values } = parseArgs({ args: Bun.argv.slice(2), options: { rounds: { type: 'string' }, seconds: { type: 'string' }, stages: { type: 'string' }, rate: { type: 'string' } } })
  const rounds = Number(values.rounds ?? 5)
  const seconds = Number(values.seconds ?? 3)
  const rate = values.rate === undefined ? undefined : Number(values.rate)
  if (rate !== undefined && !(Number.isInteger(rate) && rate > 0)) throw new Error(`--rate takes requests per second, a whole number from 1 (got ${values.rate})`)
  const signed = await rejectionBodies()
  const bodies = { MALFORMED_ORDER: signed.malformed, FEE_BELOW_FLOOR: signed.belowFloor }
  const { freePort } = await import('../src/shared/index.ts')
  const known = ['baseline', 'checks', 'bunRoute', 'appBare', 'appOps', 'relayer', 'hono']
  const asked = values.stages?.split(',') ?? known
  const unknown = asked.filter((name) => !known.includes(name))
  if (unknown.length) throw new Error(`unknown stage ${unknown.join(', ')}; the stages are ${known.join(', ')}`)
  const stages = known.filter((name) => name === 'baseline' || asked.includes(name))
  const servers = new Map<string, { port: number; child: ReturnType<typeof Bun.spawn> }>()
  for (const name of stages) {
    const port = await freePort()
    servers.set(name, { port, child: Bun.spawn([process.execPath, import.meta.path, 'serve', name, String(port)], { stdout: Bun.file('/dev/null'), stderr: 'inherit' }) })
  }
  const cli = resolve(import.meta.dir, '../node_modules/autocannon/autocannon.js')
  async function load(name: string, body: string) {
    const { port, child } = servers.get(name)!
    const before = cpuSeconds(child.pid)
    if (rate !== undefined) {
      // The bench's own flood, for `seconds`.
      const flood = await startFlood(`http://127.0.0.1:${port}`, rate, body)
      await Bun.sleep(seconds * 1000)
      const result = await flood.stop()
      return { perSecond: result.perSecond, usPerRequest: ((cpuSeconds(child.pid) - before) * 1e6) / result.total }
    }
    const run = Bun.spawn(['node', cli, '--json', '--no-progress', '-c', '32', '-d', String(seconds), '-m', 'POST', '-H', 'content-type=application/json', '-b', body, `http://127.0.0.1:${port}/broker`], { stdout: 'pipe', stderr: 'pipe' })
    const text = await new Response(run.stdout).text()
    const result = JSON.parse(text.slice(text.indexOf('{'))) as { requests: { total: number }; duration: number }
    return { perSecond: result.requests.total / result.duration, usPerRequest: ((cpuSeconds(child.pid) - before) * 1e6) / result.requests.total }
  }
  try {
    for (const { port } of servers.values()) {
      for (let tries = 0; ; tries++) {
        const answer = await fetch(`http://127.0.0.1:${port}/broker`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bodies.FEE_BELOW_FLOOR }).catch(() => undefined)
        if (answer) break
        if (tries > 200) throw new Error('a stage server did not start')
        await Bun.sleep(25)
      }
    }
    type Kind = keyof typeof bodies
    const kinds: Kind[] = ['MALFORMED_ORDER', 'FEE_BELOW_FLOOR']
    // The baseline route answers every body alike, so it is loaded with one.
    const lines: Array<[string, Kind]> = stages.flatMap((name): Array<[string, Kind]> => (name === 'baseline' ? [[name, 'MALFORMED_ORDER']] : kinds.map((kind): [string, Kind] => [name, kind])))
    const results = new Map<string, Array<{ perSecond: number; usPerRequest: number }>>()
    for (const [name, kind] of lines) await load(name, bodies[kind]) // warm-up
    for (let round = 0; round < rounds; round++) {
      for (const [name, kind] of lines) {
        const key = `${name} ${kind}`
        results.set(key, [...(results.get(key) ?? []), await load(name, bodies[kind])])
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
    const base = median(results.get('baseline MALFORMED_ORDER')!.map((each) => each.usPerRequest))
    console.log(`server CPU per request over HTTP, median of ${rounds} rounds of ${seconds} s, ${rate === undefined ? '32 connections' : `${rate} req/s over 64 connections`}; load ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`)
    console.log('| server | body | µs CPU per request | req/s | baseline µs ÷ this |\n|---|---|---|---|---|')
    for (const [key, runs] of results) {
      const us = median(runs.map((each) => each.usPerRequest))
      const [name, kind] = key.split(' ')
      console.log(`| ${name} | ${kind} | ${us.toFixed(1)} | ${median(runs.map((each) => each.perSecond)).toFixed(0)} | ${(base / us).toFixed(2)} |`)
    }
  } finally {
    for (const { child } of servers.values()) child.kill()
  }
}
