import { RelayError } from '../errors.ts'
import type { BodyDeadlines } from './bodyDeadlines.ts'

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
  /** One timer for the deadlines of every body being read (see bodyDeadlines.ts); default: a timer per read. */
  deadlines?: BodyDeadlines
}

/**
 * The request body as JSON, or MALFORMED_ORDER: wrong content type, too large, too
 * slow, or not JSON. The body is counted while it is read, chunked included, so an
 * oversized one is refused after `maxBytes` and never buffered whole; a body still
 * arriving after `deadlineMs` is refused too (a slow client cannot hold the request
 * open). The body text is never quoted back.
 */
export function readJsonBody(request: Request, limits: BodyLimits = { maxBytes: maxBodyBytes, deadlineMs: 10_000 }): Promise<unknown> {
  const { headers } = request
  const type = headers.get('content-type') ?? ''
  if (!/^application\/(.+\+)?json\b/i.test(type.trim())) {
    return Promise.reject(new RelayError('MALFORMED_ORDER', 'malformed request: Content-Type must be application/json'))
  }
  const length = headers.get('content-length')
  const declared = Number(length ?? '0')
  if (declared > limits.maxBytes) return Promise.reject(tooLarge(limits.maxBytes))
  // A declared length is enforced by the server (no more bytes are read as body), so
  // it can be read whole; a chunked body (no length) is counted as it arrives.
  const bytes = length !== null && Number.isSafeInteger(declared) ? readDeclared(request, limits) : readLimited(request.body, limits)
  return bytes.then(parseJson)
}

function parseJson(bytes: Uint8Array): unknown {
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

/** A body of declared length (at most `maxBytes`), within the deadline. */
function readDeclared(request: Request, { deadlineMs, deadlines }: BodyLimits): Promise<Uint8Array> {
  if (deadlines) return deadlines.within(request.bytes(), () => tooSlow(deadlineMs)).catch(brokenRead)
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(tooSlow(deadlineMs)), deadlineMs)))
  return Promise.race([request.bytes(), late])
    .catch(brokenRead)
    .finally(() => clearTimeout(timer))
}

/** A read that failed for another reason than its deadline: the connection broke. */
function brokenRead(error: unknown): never {
  if (error instanceof RelayError) throw error
  throw new RelayError('MALFORMED_ORDER', 'malformed request: the body could not be read (connection broken)')
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
