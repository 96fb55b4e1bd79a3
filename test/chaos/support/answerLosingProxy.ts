import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * An HTTP proxy in front of a node that, when armed, forwards the next
 * `eth_sendRawTransaction` to the node and then cuts the client's connection
 * without an answer: the tx reached the node, the relayer never hears so.
 */
export async function startAnswerLosingProxy(upstream: string) {
  let armed = false
  let lost = 0
  const server = createServer(async (request, response) => {
    const text = await bodyOf(request)
    const forwarded = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text })
    const answer = await forwarded.text()
    if (armed && text.includes('"eth_sendRawTransaction"')) {
      armed = false
      lost++
      request.socket.destroy()
      return
    }
    response.writeHead(forwarded.status, { 'content-type': 'application/json' }).end(answer)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Lose the answer of the next eth_sendRawTransaction. */
    arm() {
      armed = true
    },
    get lost() {
      return lost
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

function bodyOf(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => (text += chunk))
    request.on('end', () => resolve(text))
    request.on('error', reject)
  })
}
