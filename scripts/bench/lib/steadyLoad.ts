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

const script = resolve(import.meta.dir, 'steadyLoad.mjs')

/**
 * Starts autocannon in its own Node process at `rate` requests per second across
 * `connections`, bounded by `amount` requests and `seconds` seconds, on loopback.
 * Resolves once its connections run (Node takes a few hundred ms to load it);
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
}) {
  if (!/^http:\/\/127\.0\.0\.1:/.test(parameters.url)) throw new Error(`steady load only on loopback (got ${parameters.url})`)
  const child = Bun.spawn(['node', script, JSON.stringify({ method: 'GET', ...parameters })], { stdout: 'pipe', stderr: 'pipe' })
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
