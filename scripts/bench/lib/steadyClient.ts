// bun steadyClient.ts '<options JSON>': a lean HTTP/1.1 load generator at a steady rate,
// in its own Bun process: `connections` kept-alive TCP connections, one request in
// flight on each, the same pre-built request bytes every time, sent as the rate makes
// them due (checked every millisecond) for at most `amount` requests and `seconds`
// seconds (stopped earlier by SIGTERM). Prints `running` once every connection is open,
// then a JSON summary on stdout, as steadyLoad.mjs does (steadyLoad.ts starts and reads
// either).
//
// Why not autocannon for the flood: its `overallRate` is a quota per connection per
// second, which each connection spends back to back at the start of its second, so
// 5,000 requests a second came as one burst a second at the server's full speed; and at
// that rate it took a third of one of the machine's two cores. This one sends the
// requests spread over the second and reads only each answer's status line and length
// (docs/benchmarks.md, the flood section).
import type { Socket } from 'bun'
import { percentile } from './stats.ts'

type Options = { url: string; rate: number; connections: number; amount: number; seconds: number; method?: string; body?: string; headers?: Record<string, string> }
type Connection = { socket: Socket<undefined> | undefined; sentAt: number | undefined; pending: Buffer | undefined; /** Request bytes the socket did not take yet. */ unsent: Buffer | undefined }

const options = JSON.parse(process.argv[2] ?? '{}') as Options
const url = new URL(options.url)
if (url.protocol !== 'http:' || url.hostname !== '127.0.0.1') throw new Error(`steadyClient: loopback http only (got ${options.url})`)
const port = Number(url.port)
const body = Buffer.from(options.body ?? '')
const headerLines = Object.entries({ host: url.host, ...(options.headers ?? {}), 'content-length': String(body.length) }).map(([name, value]) => `${name}: ${value}\r\n`)
const request = Buffer.concat([Buffer.from(`${options.method ?? 'GET'} ${url.pathname}${url.search} HTTP/1.1\r\n${headerLines.join('')}\r\n`), body])
const timeoutMs = 10_000
const headEnd = Buffer.from('\r\n\r\n')

const statuses: Record<string, number> = {}
const latencies: number[] = []
let issued = 0
let answered = 0
let errors = 0
let timeouts = 0
let startedAt = 0
let cpuAtStart: NodeJS.CpuUsage | undefined
let finished = false
const connections: Connection[] = Array.from({ length: options.connections }, () => ({ socket: undefined, sentAt: undefined, pending: undefined, unsent: undefined }))
const idle: Connection[] = []

function send(connection: Connection) {
  issued++
  connection.sentAt = performance.now()
  write(connection, request)
}

/** Writes `bytes`, keeping what the socket did not take for its `drain`. */
function write(connection: Connection, bytes: Buffer) {
  const written = connection.socket!.write(bytes)
  connection.unsent = written < bytes.length ? bytes.subarray(Math.max(0, written)) : undefined
}

/** Sends what the steady rate has made due, on idle connections. */
function sendDue() {
  if (finished) return
  const due = Math.min(options.amount, Math.floor(((performance.now() - startedAt) * options.rate) / 1000)) - issued
  for (let i = 0; i < due && idle.length > 0; i++) send(idle.pop()!)
}

/**
 * An answer is whole once its head and `content-length` bytes of body are in; `close`
 * when the server said it closes the connection after it (no request may follow on it).
 */
function answerLength(buffer: Buffer): { status: string; length: number; close: boolean } | undefined {
  const end = buffer.indexOf(headEnd)
  if (end < 0) return undefined
  const head = buffer.toString('latin1', 0, end)
  const match = /\r\ncontent-length:\s*(\d+)/i.exec(head)
  if (!match) throw new Error('an answer without content-length')
  const length = end + 4 + Number(match[1])
  return buffer.length >= length ? { status: head.slice(9, 12), length, close: /\r\nconnection:\s*close/i.test(head) } : undefined
}

function answeredOn(connection: Connection, status: string, close: boolean) {
  answered++
  statuses[status] = (statuses[status] ?? 0) + 1
  latencies.push(performance.now() - connection.sentAt!)
  connection.sentAt = undefined
  if (answered >= options.amount) return finish()
  if (close) return reopen(connection)
  idle.push(connection)
  sendDue()
}

/** A connection that broke, timed out or was closed by the server is opened again. */
function reopen(connection: Connection) {
  // Detached before `end`, whose close callback may run at once and must see it gone:
  // else it opened the connection a second time, and an answer on the first was lost.
  const old = connection.socket
  connection.socket = undefined
  old?.end()
  connection.sentAt = undefined
  connection.pending = undefined
  connection.unsent = undefined
  if (finished) return
  // A refused connection is counted and tried again shortly, never a crash of the load.
  open(connection).catch(() => {
    errors++
    setTimeout(() => reopen(connection), 50)
  })
}

async function open(connection: Connection): Promise<void> {
  connection.socket = await Bun.connect({
    hostname: url.hostname,
    port,
    socket: {
      data(socket, chunk) {
        if (socket !== connection.socket) return
        const buffer = connection.pending ? Buffer.concat([connection.pending, chunk]) : chunk
        let whole: ReturnType<typeof answerLength>
        try {
          whole = answerLength(buffer)
        } catch {
          errors++
          return reopen(connection)
        }
        if (!whole) {
          connection.pending = buffer
          return
        }
        connection.pending = undefined
        answeredOn(connection, whole.status, whole.close)
      },
      drain(socket) {
        if (socket === connection.socket && connection.unsent) write(connection, connection.unsent)
      },
      close(socket) {
        // A socket this connection already replaced has nothing more to say.
        if (socket !== connection.socket) return
        if (connection.sentAt !== undefined) errors++
        reopen(connection)
      },
      error() {
        // Counted by the close that follows (a request in flight is then a failed one).
      },
    },
  })
  if (startedAt > 0) {
    idle.push(connection)
    sendDue()
  }
}

function finish() {
  if (finished) return
  finished = true
  clearInterval(ticker)
  clearTimeout(bound)
  const cpu = cpuAtStart ? process.cpuUsage(cpuAtStart) : { user: 0, system: 0 }
  const at = (p: number) => (latencies.length ? percentile(latencies, p) : 0)
  const seconds = startedAt ? (performance.now() - startedAt) / 1000 : 0
  process.stdout.write(`${JSON.stringify({ total: answered, seconds, statuses, errors, timeouts, p50: at(50), p99: at(99), cpuSeconds: (cpu.user + cpu.system) / 1e6 })}\n`)
  for (const connection of connections) connection.socket?.end()
  process.exit(0)
}

process.once('SIGTERM', finish)
let ticker: ReturnType<typeof setInterval> | undefined
let bound: ReturnType<typeof setTimeout> | undefined
await Promise.all(connections.map(open))
cpuAtStart = process.cpuUsage()
startedAt = performance.now()
idle.push(...connections)
ticker = setInterval(() => {
  const now = performance.now()
  for (const connection of connections) {
    if (connection.sentAt !== undefined && now - connection.sentAt > timeoutMs) {
      timeouts++
      reopen(connection)
    }
  }
  sendDue()
}, 1)
bound = setTimeout(finish, options.seconds * 1000)
process.stdout.write('running\n')
