import { resolve } from 'node:path'

export type SteadyLoadResult = {
  /** Requests answered. */
  total: number
  seconds: number
  /** Answers per second over the time it ran. */
  perSecond: number
  /** Answers by HTTP status. */
  statuses: Record<string, number>
  errors: number
  timeouts: number
  /** Latency percentiles, ms. */
  p50: number
  p99: number
  /** CPU seconds (user + system) the load generator itself used while it ran. */
  cpuSeconds: number
}

const autocannonScript = resolve(import.meta.dir, 'steadyLoad.mjs')
const steadyScript = resolve(import.meta.dir, 'steadyClient.ts')

/**
 * Starts a load generator in its own process at `rate` requests per second across
 * `connections`, bounded by `amount` requests and `seconds` seconds, on loopback:
 * autocannon in Node (the default; each connection sends its share of a second back to
 * back, then waits for the next second), or `generator: 'steady'`, steadyClient.ts in
 * Bun, which spreads the requests over each second. Resolves once its connections run;
 * `stop()` ends it early and resolves with its summary.
 */
export async function startSteadyLoad(parameters: {
  url: string
  rate: number
  connections: number
  amount: number
  seconds: number
  method?: 'GET' | 'POST'
  body?: string
  headers?: Record<string, string>
  /** `autocannon` (the default): a quota per connection per second, spent in a burst; `steady`: steadyClient.ts, spread over each second. */
  generator?: 'autocannon' | 'steady'
}) {
  if (!/^http:\/\/127\.0\.0\.1:/.test(parameters.url)) throw new Error(`steady load only on loopback (got ${parameters.url})`)
  const { generator = 'autocannon', ...load } = parameters
  const command = generator === 'steady' ? [process.execPath, steadyScript] : ['node', autocannonScript]
  const child = Bun.spawn([...command, JSON.stringify({ method: 'GET', ...load })], { stdout: 'pipe', stderr: 'pipe' })
  let reportRunning: () => void = () => {}
  const running = new Promise<void>((resolve) => (reportRunning = resolve))
  const readOut = async () => {
    let out = ''
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      out += chunk
      if (out.startsWith('running\n')) reportRunning()
    }
    return out
  }
  const done = (async (): Promise<SteadyLoadResult> => {
    const [out, err, code] = await Promise.all([readOut(), new Response(child.stderr).text(), child.exited])
    if (code !== 0) throw new Error(`steady load exited ${code}: ${err.slice(0, 500)}`)
    const summary = JSON.parse(out.slice(out.indexOf('{'))) as Omit<SteadyLoadResult, 'perSecond'>
    return { ...summary, perSecond: summary.total / Math.max(summary.seconds, 0.001) }
  })()
  // An early exit rejects `done`: surface it instead of waiting for a start that never comes.
  await Promise.race([running, done])
  return {
    done,
    async stop(): Promise<SteadyLoadResult> {
      if (child.exitCode === null) child.kill('SIGTERM')
      return done
    },
  }
}
