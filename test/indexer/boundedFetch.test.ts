// The indexer's fetch keeps viem's answer-size guard without viem's streamed read:
// an answer over the bound is refused whether it declares its length or not (chunked),
// and one within it is read whole.
import { afterAll, expect, test } from 'bun:test'
import { createPublicClient, http, ResponseBodyTooLargeError } from 'viem'
import { boundedFetch } from '../../src/indexer/boundedFetch.ts'

const answer = JSON.stringify({ jsonrpc: '2.0', id: 1, result: `0x${'ab'.repeat(1_000)}` })

/** Answers every request with `answer`, with a Content-Length or chunked (no length). */
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch(request) {
    const headers = { 'content-type': 'application/json' }
    if (new URL(request.url).pathname === '/declared') return new Response(answer, { headers })
    const bytes = new TextEncoder().encode(answer)
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 256) controller.enqueue(bytes.slice(at, at + 256))
        controller.close()
      },
    })
    return new Response(stream, { headers })
  },
})
afterAll(() => server.stop(true))

const base = `http://127.0.0.1:${server.port}`
const client = (path: string, max: number) =>
  createPublicClient({ transport: http(`${base}${path}`, { retryCount: 0, fetchFn: boundedFetch(max), maxResponseBodySize: false }) })
const ask = (path: string, max: number) => client(path, max).request({ method: 'eth_chainId' }) as Promise<unknown>

test('an answer within the bound is read whole, with or without a declared length', async () => {
  const size = answer.length
  const chunked = await fetch(`${base}/chunked`, { method: 'POST' })
  expect(chunked.headers.get('content-length')).toBeNull()
  expect(await ask('/declared', size)).toBe(`0x${'ab'.repeat(1_000)}`)
  expect(await ask('/chunked', size)).toBe(`0x${'ab'.repeat(1_000)}`)
})

test('an answer over the bound is refused, with or without a declared length', async () => {
  const size = answer.length
  for (const path of ['/declared', '/chunked']) {
    const error = await ask(path, size - 1).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ResponseBodyTooLargeError)
  }
})
