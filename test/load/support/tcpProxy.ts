import { connect, createServer, type Server, type Socket } from 'node:net'
import { freePort } from '../../../src/shared/index.ts'

export type TcpProxy = Awaited<ReturnType<typeof startTcpProxy>>

/**
 * A TCP proxy in front of a node: `cut()` closes the port and destroys every open
 * connection (requests in flight lose their answer, new ones are refused), as when
 * the node becomes unreachable; `restore()` listens again on the same port. The node
 * behind it keeps its state, so it "comes back" as it was.
 */
export async function startTcpProxy(upstream: { host: string; port: number }) {
  const port = await freePort()
  const host = '127.0.0.1'
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let connections = 0

  const pipe = (client: Socket) => {
    connections++
    const node = connect(upstream.port, upstream.host)
    sockets.add(client)
    sockets.add(node)
    const close = () => {
      client.destroy()
      node.destroy()
      sockets.delete(client)
      sockets.delete(node)
    }
    client.on('error', close).on('close', close)
    node.on('error', close).on('close', close)
    client.pipe(node)
    node.pipe(client)
  }

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer(pipe)
      next.once('error', reject)
      next.listen(port, host, () => {
        server = next
        resolve()
      })
    })

  await listen()
  return {
    url: `http://${host}:${port}`,
    get connections() {
      return connections
    },
    get up() {
      return server !== undefined
    },
    /** The node becomes unreachable: the port closes and open connections drop. */
    async cut() {
      const closing = server
      server = undefined
      if (!closing) return
      const closed = new Promise<void>((resolve) => closing.close(() => resolve()))
      for (const socket of sockets) socket.destroy()
      sockets.clear()
      await closed
    },
    /** The node is reachable again, on the same port. */
    async restore() {
      if (!server) await listen()
    },
    stop() {
      return this.cut()
    },
  }
}
