// SIGTERM with keep-alive connections open: a client that sends a request on one of
// them in the first milliseconds after the signal is answered (the answer saying
// `Connection: close`) or finds the connection closed cleanly; it is never reset. A
// server that closes its idle connections at once meets a request already on its way
// with a socket closed on unread bytes, which the kernel answers with a reset
// (ECONNRESET): ten stops here make that show.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connect, type Socket } from 'node:net'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { startRelayerProcess } from '../load/support/relayerProcess.ts'

let devnet: Devnet
beforeAll(async () => {
  devnet = await startDevnet()
}, 60_000)
afterAll(async () => {
  await devnet?.stop()
})

type Connection = { socket: Socket; received: string; error?: string; closed: boolean; sent: number }

/** `count` keep-alive connections to `port`, each having had one GET /info answered. */
async function openConnections(port: number, count: number): Promise<Connection[]> {
  const connections: Connection[] = []
  for (let i = 0; i < count; i++) {
    const connection: Connection = { socket: connect(port, '127.0.0.1'), received: '', closed: false, sent: 0 }
    connection.socket.on('data', (data) => (connection.received += data.toString('latin1')))
    connection.socket.on('error', (error: NodeJS.ErrnoException) => (connection.error = error.code ?? error.message))
    connection.socket.on('close', () => (connection.closed = true))
    await new Promise((resolve) => connection.socket.once('connect', resolve))
    connections.push(connection)
    send(connection, 'GET /info HTTP/1.1\r\nHost: relayer\r\n\r\n')
  }
  await waitFor('every connection answered once', () => connections.every((connection) => answers(connection).length === 1), 10_000)
  return connections
}

function send(connection: Connection, request: string) {
  connection.sent++
  connection.socket.write(request)
}

/** The status lines and headers of the answers a connection received. */
const answers = (connection: Connection) => connection.received.split(/(?=HTTP\/1\.1 \d{3})/).filter((part) => part.startsWith('HTTP/1.1'))

test('requests on open keep-alive connections right after SIGTERM: each answered (Connection: close) or the connection closed cleanly, never reset', async () => {
  const outcomes: string[] = []
  // A few stops, the requests sent right after the signal.
  for (let round = 0; round < 10; round++) {
    const relayer = await startRelayerProcess(devnet, { RELAYER_RPC_URL: devnet.rpcUrl, RELAYER_DB: ':memory:' })
    try {
      const connections = await openConnections(Number(new URL(relayer.url).port), 20)
      relayer.child.kill('SIGTERM')
      for (const [i, connection] of connections.entries()) {
        if (connection.closed) continue
        send(connection, i % 2 === 0 ? 'GET /info HTTP/1.1\r\nHost: relayer\r\n\r\n' : 'POST /broker HTTP/1.1\r\nHost: relayer\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}')
      }
      expect(await relayer.child.exited).toBe(0)
      await waitFor('every connection closed', () => connections.every((connection) => connection.closed), 10_000)
      for (const connection of connections) {
        const got = answers(connection)
        // Answered (with `Connection: close` once the relayer handles the signal), then closed.
        expect(connection.error).toBeUndefined()
        if (got.length === connection.sent) {
          outcomes.push(/connection: close/i.test(got.at(-1)!) ? 'answered, closing' : 'answered')
        } else {
          // Not answered: closed before its request was read, with no reset.
          expect({ sent: connection.sent, answered: got.length, error: connection.error }).toEqual({ sent: connection.sent, answered: connection.sent - 1, error: undefined })
          outcomes.push('closed cleanly')
        }
        connection.socket.destroy()
      }
    } finally {
      await relayer.stop()
    }
  }
  // Requests sent this early are answered: the connections stay served for a moment after the signal.
  expect(outcomes.filter((outcome) => outcome.startsWith('answered')).length).toBeGreaterThan(0)
}, 120_000)
