import { connect as connectTcp, type Socket } from 'node:net'
import { connect as connectTls } from 'node:tls'

/** Longest the probe waits for Redis's first answer. */
const probeTimeoutMs = 3_000

/**
 * Why a connection to Redis was refused, when Redis itself said so. Bun's client
 * reports a refused password only as a closed connection (`ERR_REDIS_CONNECTION_CLOSED`);
 * this probe asks once more on a plain socket, with the URL's credentials if any, and
 * reads Redis's own first answer: `-NOAUTH` (a password is needed and the URL has
 * none), `-WRONGPASS` or `-ERR invalid password` (wrong user or password). Undefined
 * when Redis cannot be reached or answered something else: the caller keeps its own reason.
 */
export async function diagnoseConnect(url: string): Promise<string | undefined> {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  const user = decodeURIComponent(parsed.username)
  const password = decodeURIComponent(parsed.password)
  const command = password ? (user ? ['AUTH', user, password] : ['AUTH', password]) : ['PING']
  const reply = await firstReply(parsed, resp(command))
  if (reply === undefined) return undefined
  if (/^-NOAUTH/i.test(reply)) return 'authentication required: Redis asks for a password and RELAYER_REDIS_URL has none (redis://:PASSWORD@host:port, or redis://USER:PASSWORD@host:port with an ACL user)'
  if (/^-(WRONGPASS|ERR invalid password|ERR invalid username-password|ERR AUTH)/i.test(reply)) {
    return 'authentication failed: Redis refused the user or password in RELAYER_REDIS_URL'
  }
  return undefined
}

/** A command in RESP (an array of bulk strings). */
function resp(parts: string[]): string {
  return `*${parts.length}\r\n${parts.map((part) => `$${Buffer.byteLength(part)}\r\n${part}\r\n`).join('')}`
}

/** The first line Redis answers to `request`, or undefined (no connection, no answer in time). */
function firstReply(url: URL, request: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const port = Number(url.port || 6379)
    const host = url.hostname.replace(/^\[|\]$/g, '')
    let socket: Socket
    try {
      socket = url.protocol === 'rediss:' ? connectTls({ host, port, servername: host }) : connectTcp({ host, port })
    } catch {
      resolve(undefined)
      return
    }
    let received = ''
    const done = (value: string | undefined) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(value)
    }
    const timer = setTimeout(() => done(undefined), probeTimeoutMs)
    socket.once(url.protocol === 'rediss:' ? 'secureConnect' : 'connect', () => socket.write(request))
    socket.on('data', (data) => {
      received += data.toString('utf8')
      const end = received.indexOf('\r\n')
      if (end >= 0) done(received.slice(0, end))
    })
    socket.once('error', () => done(undefined))
    socket.once('close', () => done(received || undefined))
  })
}
