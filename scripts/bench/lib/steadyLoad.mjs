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
      `${JSON.stringify({ total: result.requests.total, seconds: result.duration, statuses, errors: result.errors, timeouts: result.timeouts, p50: result.latency.p50, p99: result.latency.p99 })}\n`,
    )
    process.exit(0)
  },
)
instance.on('start', () => process.stdout.write('running\n'))
const timer = setTimeout(() => instance.stop(), options.seconds * 1000)
if (stopAsked) instance.stop()
