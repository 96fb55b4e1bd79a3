// node steadyLoad.mjs '<options JSON>': autocannon (from npm) at a steady overall rate
// for at most `amount` requests and `seconds` seconds, stopped earlier by SIGTERM;
// prints `running` once the connections start, then a JSON summary, on stdout. Started
// and read by steadyLoad.ts, which types it.
import { createRequire } from 'node:module'

// A stop asked for while autocannon loads still ends the run (with its summary).
let stopAsked = false
process.once('SIGTERM', () => {
  stopAsked = true
  instance?.stop()
})
let instance
const autocannon = createRequire(import.meta.url)('autocannon')
const options = JSON.parse(process.argv[2])
instance = autocannon(
  {
    url: options.url,
    connections: options.connections,
    overallRate: options.rate,
    amount: options.amount,
    method: options.method,
    body: options.body,
    headers: options.headers,
  },
  (error, result) => {
    clearTimeout(timer)
    if (error) {
      console.error(String(error))
      process.exit(1)
    }
    const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count]))
    process.stdout.write(
      `${JSON.stringify({ total: result.requests.total, seconds: result.duration, statuses, errors: result.errors, timeouts: result.timeouts, p50: result.latency.p50, p99: result.latency.p99, cpuSeconds: cpuSince(started) })}\n`,
    )
    process.exit(0)
  },
)
// This process's own CPU from the start of the load (Node's start-up not counted): what the
// load generator takes of the cores it shares with what it loads.
let started
const cpuSince = (from) => {
  const used = process.cpuUsage(from)
  return (used.user + used.system) / 1e6
}
instance.on('start', () => {
  started = process.cpuUsage()
  process.stdout.write('running\n')
})
const timer = setTimeout(() => instance.stop(), options.seconds * 1000)
if (stopAsked) instance.stop()
