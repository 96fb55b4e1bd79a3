// The baselines' server, compiled into its own executable like the real one:
//   baseline json PORT          POST /broker → reads the body, JSON.parse, then 400 with a constant
//                               RelayFailure (hono on Bun.serve): the least any validating server does
//   baseline static PORT FILE   GET /activity → the file's bytes, preloaded (a static Bun route)
//   baseline health PORT        GET /health → 200 ok (start-up and memory floor)
import { readFileSync } from 'node:fs'
import { Hono } from 'hono'

const [mode, portText, file] = process.argv.slice(2)
const port = Number(portText)
const hostname = '127.0.0.1'

if (mode === 'json') {
  const app = new Hono()
  const failure = { ok: false, code: 'MALFORMED_ORDER', message: 'malformed request: order.amount expected a decimal string' }
  app.post('/broker', async (c) => {
    // The parsed value is kept in reach so the parse cannot be optimised away.
    let parsed: unknown
    try {
      parsed = JSON.parse(await c.req.text())
    } catch {
      parsed = undefined
    }
    return c.json(parsed === null ? { ...failure, message: 'null body' } : failure, 400)
  })
  Bun.serve({ hostname, port, fetch: app.fetch })
} else if (mode === 'static' && file) {
  const body = readFileSync(file)
  Bun.serve({ hostname, port, routes: { '/activity': new Response(body, { headers: { 'content-type': 'application/json' } }) }, fetch: () => new Response('not found', { status: 404 }) })
} else if (mode === 'health') {
  Bun.serve({ hostname, port, routes: { '/health': new Response('ok') }, fetch: () => new Response('not found', { status: 404 }) })
} else {
  console.error('usage: baseline json|static|health PORT [FILE]')
  process.exit(2)
}
console.log(`baseline ${mode} listening on http://${hostname}:${port}`)
