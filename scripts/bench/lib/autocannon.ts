import { resolve } from 'node:path'

export type LoadResult = {
  /** Mean requests per second over the run. */
  perSecond: number
  total: number
  /** Answers by HTTP status. */
  statuses: Record<string, number>
  errors: number
  timeouts: number
  /** Median latency, ms. */
  p50: number
}

const cli = resolve(import.meta.dir, '../../../node_modules/autocannon/autocannon.js')

/**
 * Runs autocannon (from npm) in its own Node process, so the load generator never
 * shares an event loop with what it measures, and reads its JSON summary.
 */
export async function autocannon(parameters: {
  url: string
  connections: number
  seconds: number
  method?: 'GET' | 'POST'
  body?: string
  headers?: Record<string, string>
}): Promise<LoadResult> {
  const args = ['node', cli, '--json', '--no-progress', '-c', String(parameters.connections), '-d', String(parameters.seconds), '-m', parameters.method ?? 'GET']
  for (const [key, value] of Object.entries(parameters.headers ?? {})) args.push('-H', `${key}=${value}`)
  if (parameters.body !== undefined) args.push('-b', parameters.body)
  args.push(parameters.url)
  const child = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  if (code !== 0) throw new Error(`autocannon exited ${code}: ${err.slice(0, 500)}`)
  const json = JSON.parse(out.slice(out.indexOf('{'))) as {
    requests: { average: number; total: number }
    errors: number
    timeouts: number
    latency: { p50: number }
    statusCodeStats?: Record<string, { count: number }>
    duration: number
  }
  const statuses = Object.fromEntries(Object.entries(json.statusCodeStats ?? {}).map(([status, { count }]) => [status, count]))
  return {
    perSecond: json.requests.total / json.duration,
    total: json.requests.total,
    statuses,
    errors: json.errors,
    timeouts: json.timeouts,
    p50: json.latency.p50,
  }
}
