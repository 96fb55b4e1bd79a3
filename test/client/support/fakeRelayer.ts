/**
 * An HTTP server on 127.0.0.1 that answers every request with `answer(request)`:
 * a stand-in for whatever sits at a URL that is not (quite) a relayer.
 */
export function startFakeServer(answer: (request: Request) => Response | Promise<Response>) {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: answer })
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) }
}

/** A server that accepts connections and never answers. */
export function startSilentServer() {
  const pending: (() => void)[] = []
  const server = startFakeServer(() => new Promise<Response>((resolve) => pending.push(() => resolve(new Response('late')))))
  return {
    url: server.url,
    stop() {
      for (const release of pending) release()
      server.stop()
    },
  }
}
