import { createServer, type Socket, connect } from 'node:net'

/**
 * A TCP proxy in front of a server (PostgreSQL, an indexer) that can black-hole its
 * connections: `blackhole()` stops forwarding in both directions and closes nothing
 * (what a dead network path or a firewall dropping packets looks like to both ends:
 * the sockets stay open, nothing arrives); `heal()` forwards again, including a close
 * that happened meanwhile. `down()` drops every connection and refuses new ones until
 * `up()` (a network outage that both ends see).
 */
export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1') {
  const pairs = new Set<[Socket, Socket]>()
  let holes = false
  let server = createServer(accept)
  function accept(client: Socket) {
    const upstream = connect(targetPort, targetHost)
    const pair: [Socket, Socket] = [client, upstream]
    pairs.add(pair)
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      from.on('data', (chunk) => to.write(chunk))
      from.on('end', () => to.end())
      from.on('error', () => to.destroy())
      from.on('close', () => {
        to.destroy()
        pairs.delete(pair)
      })
    }
    if (holes) {
      client.pause()
      upstream.pause()
    }
  }
  const drop = () => {
    for (const [client, upstream] of pairs) {
      client.destroy()
      upstream.destroy()
    }
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const port = (server.address() as { port: number }).port
  return {
    port,
    /** Nothing passes any more, in either direction; no connection is closed. */
    blackhole() {
      holes = true
      for (const [client, upstream] of pairs) {
        client.pause()
        upstream.pause()
      }
    },
    /** Everything held passes again (data, then any close that came meanwhile). */
    heal() {
      holes = false
      for (const [client, upstream] of pairs) {
        client.resume()
        upstream.resume()
      }
    },
    /** Every connection drops, and new ones are refused. */
    async down() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        drop()
      })
    },
    /** Accepts connections again, on the same port. */
    async up() {
      server = createServer(accept)
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()))
    },
    stop() {
      drop()
      server.close()
    },
  }
}
