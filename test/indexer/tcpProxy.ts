import { createServer, type Socket, connect } from 'node:net'

/**
 * A TCP proxy in front of a server (PostgreSQL in the tests) that can black-hole its
 * connections: `blackhole()` stops forwarding in both directions and closes nothing
 * (what a dead network path or a firewall dropping packets looks like to both ends:
 * the sockets stay open, nothing arrives); `heal()` forwards again, including a close
 * that happened meanwhile.
 */
export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1') {
  const pairs = new Set<[Socket, Socket]>()
  let holes = false
  const server = createServer((client) => {
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
  })
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
    stop() {
      for (const [client, upstream] of pairs) {
        client.destroy()
        upstream.destroy()
      }
      server.close()
    },
  }
}
