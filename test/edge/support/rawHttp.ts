import { connect, type Socket } from 'node:net'

/** What came back on a raw connection: the status line's code (0 if none) and the whole text. */
export type RawAnswer = { status: number; text: string; body: string }

/**
 * One HTTP/1.1 request written by hand on a TCP socket, so a test controls when each
 * byte of the body goes out (chunked, stalled, cut). `send` writes raw bytes; `answer`
 * resolves once the server has answered and closed, or `closed` says it hung up.
 */
export function rawRequest(url: string, head: string) {
  const { hostname, port } = new URL(url)
  const socket: Socket = connect({ host: hostname, port: Number(port) })
  let received = ''
  let ended = false
  socket.setNoDelay(true)
  socket.on('data', (data) => {
    received += data.toString('latin1')
  })
  const finished = new Promise<void>((resolve) => {
    socket.once('close', () => {
      ended = true
      resolve()
    })
    socket.on('error', () => {})
  })
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()))
  const ready = connected.then(() => write(head))

  function write(data: string | Uint8Array): Promise<boolean> {
    if (ended || socket.destroyed) return Promise.resolve(false)
    return new Promise((resolve) => {
      const ok = socket.write(data, (error) => resolve(!error))
      if (!ok) socket.once('drain', () => {})
    })
  }

  const parse = (): RawAnswer => {
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0)
    const at = received.indexOf('\r\n\r\n')
    let body = at >= 0 ? received.slice(at + 4) : ''
    if (/transfer-encoding: chunked/i.test(received.slice(0, at))) body = dechunk(body)
    return { status, text: received, body }
  }

  return {
    ready,
    send: async (data: string | Uint8Array) => {
      await ready
      return write(data)
    },
    /** Whether the server has sent a complete status line yet. */
    get answered() {
      return /^HTTP\/1\.1 \d{3}/.test(received) && received.includes('\r\n\r\n')
    },
    get closed() {
      return ended
    },
    /** Waits (up to `ms`) for a whole answer: the connection closed, or a body of the announced length. */
    async answer(ms = 30_000): Promise<RawAnswer> {
      const deadline = Date.now() + ms
      while (Date.now() < deadline && !ended && !complete(received)) await Bun.sleep(10)
      if (!ended && !complete(received)) throw new Error(`no complete answer within ${ms} ms; got ${JSON.stringify(received.slice(0, 300))}`)
      return parse()
    },
    end() {
      socket.end()
      return finished
    },
    destroy() {
      socket.destroy()
    },
  }
}

function complete(received: string): boolean {
  const at = received.indexOf('\r\n\r\n')
  if (at < 0) return false
  const head = received.slice(0, at)
  const length = /content-length: (\d+)/i.exec(head)?.[1]
  if (length !== undefined) return Buffer.byteLength(received.slice(at + 4), 'latin1') >= Number(length)
  if (/transfer-encoding: chunked/i.test(head)) return received.endsWith('0\r\n\r\n')
  return false
}

function dechunk(body: string): string {
  let out = ''
  let rest = body
  for (;;) {
    const line = rest.indexOf('\r\n')
    if (line < 0) return out
    const size = Number.parseInt(rest.slice(0, line), 16)
    if (!size) return out
    out += rest.slice(line + 2, line + 2 + size)
    rest = rest.slice(line + 2 + size + 2)
  }
}

/** One chunk in chunked transfer encoding. */
export const chunk = (data: Uint8Array | string): Uint8Array | string =>
  typeof data === 'string' ? `${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n` : Buffer.concat([Buffer.from(`${data.byteLength.toString(16)}\r\n`), data, Buffer.from('\r\n')])

/** Resident set size of a process in MiB (Linux /proc). */
export async function rssMiB(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text()
  const kib = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN)
  return kib / 1024
}
