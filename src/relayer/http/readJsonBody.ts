import type { Context } from 'hono'
import { RelayError } from '../errors.ts'

// One decoder for every request: `decode` without `stream` keeps no state between calls.
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Largest `POST /broker` body accepted; a real request is well under 2 KiB. */
export const maxBodyBytes = 64 * 1024

/**
 * Largest body the HTTP server itself lets in (`Bun.serve`'s `maxRequestBodySize`): a
 * backstop behind `readJsonBody`'s own count, which answers MALFORMED_ORDER long
 * before. Only a body declared larger than this gets the server's bare 413.
 */
export const maxServerBodyBytes = 8 * 1024 * 1024

export type BodyLimits = {
  /** Bytes accepted; more is refused as soon as they arrive. */
  maxBytes: number
  /** How long the whole body may take to arrive, from the first byte of the request. */
  deadlineMs: number
}

/**
 * The request body as JSON, or MALFORMED_ORDER: wrong content type, too large, too
 * slow, or not JSON. The body is counted while it is read, chunked included, so an
 * oversized one is refused after `maxBytes` and never buffered whole; a body still
 * arriving after `deadlineMs` is refused too (a slow client cannot hold the request
 * open). The body text is never quoted back.
 */
export async function readJsonBody(c: Context, limits: BodyLimits = { maxBytes: maxBodyBytes, deadlineMs: 10_000 }): Promise<unknown> {
  const type = c.req.header('content-type') ?? ''
  if (!/^application\/(.+\+)?json\b/i.test(type.trim())) {
    throw new RelayError('MALFORMED_ORDER', 'malformed request: Content-Type must be application/json')
  }
  const declared = Number(c.req.header('content-length') ?? '0')
  if (declared > limits.maxBytes) throw tooLarge(limits.maxBytes)
  const bytes = await readLimited(c.req.raw.body, limits)
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    throw new RelayError('MALFORMED_ORDER', 'malformed request: body is not valid UTF-8')
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new RelayError('MALFORMED_ORDER', 'malformed request: body is not valid JSON')
  }
}

/** Reads a stream into one buffer, giving up (and cancelling it) past the size or the deadline. */
async function readLimited(stream: ReadableStream<Uint8Array> | null, limits: BodyLimits): Promise<Uint8Array> {
  if (!stream) return new Uint8Array()
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  let late = false
  const timer = setTimeout(() => {
    late = true
    reader.cancel().catch(() => {})
  }, limits.deadlineMs)
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>
      try {
        chunk = await reader.read()
      } catch {
        if (late) throw tooSlow(limits.deadlineMs)
        throw new RelayError('MALFORMED_ORDER', 'malformed request: the body could not be read (connection broken)')
      }
      if (late) throw tooSlow(limits.deadlineMs)
      if (chunk.done) break
      total += chunk.value.byteLength
      if (total > limits.maxBytes) {
        reader.cancel().catch(() => {})
        throw tooLarge(limits.maxBytes)
      }
      chunks.push(chunk.value)
    }
  } finally {
    clearTimeout(timer)
  }
  const bytes = new Uint8Array(total)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.byteLength
  }
  return bytes
}

const tooLarge = (max: number) => new RelayError('MALFORMED_ORDER', `malformed request: body is larger than ${max} bytes`)
const tooSlow = (ms: number) => new RelayError('MALFORMED_ORDER', `malformed request: the body did not arrive within ${ms} ms; send it at once`)
