// `readJsonBody` over real HTTP: a body of declared length is read with `text()`, which
// decodes invalid UTF-8 to U+FFFD instead of failing, so the refusal of invalid UTF-8
// rests on finding U+FFFD. Every kind of invalid sequence must still be refused, in a
// declared and in a chunked body alike, and valid UTF-8 must still be read.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { RelayError } from '../../src/relayer/errors.ts'
import { readJsonBody } from '../../src/relayer/http/readJsonBody.ts'

let server: ReturnType<typeof Bun.serve>
let url: string

beforeAll(() => {
  server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      // Tells the test which way the body came, so each case is known to take its path.
      const headers = { 'x-declared': String(request.headers.has('content-length')) }
      try {
        return Response.json({ read: await readJsonBody(request) }, { headers })
      } catch (error) {
        if (!(error instanceof RelayError)) return Response.json({ unexpected: String(error) }, { status: 500, headers })
        return Response.json({ code: error.code, message: error.message }, { status: 400, headers })
      }
    },
  })
  url = `http://127.0.0.1:${server.port}/`
})
afterAll(() => server?.stop(true))

const encode = (text: string) => new TextEncoder().encode(text)
const json = encode(JSON.stringify({ order: { amount: '10' }, chainId: 1 }))

/** `bytes` with `inserted` put in at `at`. */
function spliced(bytes: Uint8Array, at: number, inserted: number[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(bytes.length + inserted.length)
  out.set(bytes.subarray(0, at), 0)
  out.set(inserted, at)
  out.set(bytes.subarray(at), at + inserted.length)
  return out
}

/** POSTs `bytes` with a declared length, or chunked (a stream, no Content-Length), and gives the answer. */
async function post(bytes: Uint8Array<ArrayBuffer>, how: 'declared' | 'chunked'): Promise<{ status: number; body: Record<string, unknown> }> {
  const body =
    how === 'declared'
      ? bytes
      : new ReadableStream<Uint8Array>({
          start(controller) {
            // Two chunks, split inside the body, so a sequence can straddle them.
            const half = bytes.length >> 1
            controller.enqueue(bytes.slice(0, half))
            controller.enqueue(bytes.slice(half))
            controller.close()
          },
        })
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  expect({ how, declared: response.headers.get('x-declared') }).toEqual({ how, declared: String(how === 'declared') })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

// The invalid sequences of the fuzz suite (test/fuzz/support/bodies.ts): a lone byte
// past ASCII, an overlong form, a UTF-16 surrogate, a five-byte form, a truncated
// sequence, a stray continuation byte, a code point past U+10FFFF.
const invalid = [[0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82], [0x80], [0xf4, 0x90, 0x80, 0x80], [0xf0, 0x9f, 0x98]]

test('every invalid UTF-8 sequence is refused MALFORMED_ORDER, wherever it sits, declared or chunked', async () => {
  const answers: string[] = []
  for (const sequence of invalid) {
    // Inside a string value, between tokens, at the start and at the very end.
    for (const at of [json.indexOf(encode('10')[0]!), 1, 0, json.length]) {
      for (const how of ['declared', 'chunked'] as const) {
        const { status, body } = await post(spliced(json, at, sequence), how)
        answers.push(`${sequence.map((b) => b.toString(16)).join(' ')} at ${at} ${how}: ${status} ${String(body.code)} ${String(body.message)}`)
      }
    }
  }
  const refused = answers.filter((line) => / 400 MALFORMED_ORDER malformed request: body is not valid UTF-8/.test(line))
  expect(answers.filter((line) => !refused.includes(line))).toEqual([])
  expect(refused).toHaveLength(invalid.length * 4 * 2)
})

test('valid UTF-8 past ASCII is read, declared or chunked; a byte order mark is skipped', async () => {
  const text = JSON.stringify({ note: 'é € 😀 日本', order: { amount: '10' } })
  for (const how of ['declared', 'chunked'] as const) {
    expect(await post(encode(text), how)).toEqual({ status: 200, body: { read: JSON.parse(text) } })
    expect(await post(Uint8Array.from([0xef, 0xbb, 0xbf, ...encode(text)]), how)).toEqual({ status: 200, body: { read: JSON.parse(text) } })
  }
})

test('a body holding U+FFFD itself is refused too (no field of a request can hold it); its JSON escape is left to the schema', async () => {
  const literal = encode(JSON.stringify({ note: '\uFFFD' }))
  const { status, body } = await post(literal, 'declared')
  expect({ status, code: body.code, message: body.message }).toEqual({
    status: 400,
    code: 'MALFORMED_ORDER',
    message: 'malformed request: body is not valid UTF-8 (or holds U+FFFD, which no field of a request can)',
  })
  // Written as the ASCII escape `\ufffd`, it is only JSON: read here, refused later by the schema's checks.
  const escaped = encode('{"note":"\\ufffd"}')
  expect(await post(escaped, 'declared')).toEqual({ status: 200, body: { read: { note: '\uFFFD' } } })
})

test('not JSON, the wrong content type and a body over the limit keep their own messages', async () => {
  expect((await post(encode('{"order":'), 'declared')).body.message).toBe('malformed request: body is not valid JSON')
  expect((await post(encode('{"order":'), 'chunked')).body.message).toBe('malformed request: body is not valid JSON')
  const wrongType = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: json })
  expect(((await wrongType.json()) as { message: string }).message).toBe('malformed request: Content-Type must be application/json')
  const huge = encode(`{"params":"0x${'00'.repeat(40_000)}"}`)
  for (const how of ['declared', 'chunked'] as const) {
    expect((await post(huge, how)).body.message).toBe('malformed request: body is larger than 65536 bytes')
  }
})
