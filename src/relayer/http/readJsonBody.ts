import { RelayError } from '../errors.ts'
import type { BodyDeadlines } from './bodyDeadlines.ts'

// One decoder for every request: `decode` without `stream` keeps no state between calls.
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Largest `POST /broker` body accepted; a real request is well under 2 KiB. */
export const maxBodyBytes = 64 * 1024

/**
 * `Bun.serve`'s `maxRequestBodySize`: no limit of the server's own, so every body,
 * whatever length it declares, reaches `readJsonBody` and is answered the relayer's
 * way (400 MALFORMED_ORDER, in the access log), never with the server's bare
 * plain-text 413. Nothing is buffered for it: a body is counted as it is read, and one
 * declared too large is never read (the server drops its bytes and, told
 * `Connection: close`, the connection).
 */
export const maxServerBodyBytes = Number.MAX_SAFE_INTEGER

/** The `cause` of a refusal that left the body unread: its answer closes the connection (brokerRoute.ts). */
export const bodyLeftUnread = Symbol('the request body was left unread')

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
 * slow, not UTF-8 or not JSON. The body is counted while it is read, chunked included, so an
 * oversized one is refused after `maxBytes` and never buffered whole; a body still
 * arriving after `deadlineMs` is refused too (a slow client cannot hold the request
 * open). The body text is never quoted back.
 */
export async function readJsonBody(request: Request, limits: BodyLimits = { maxBytes: maxBodyBytes, deadlineMs: 10_000 }): Promise<unknown> {
  const { headers } = request
  const type = headers.get('content-type') ?? ''
  if (!/^application\/(.+\+)?json\b/i.test(type.trim())) {
    throw new RelayError('MALFORMED_ORDER', 'malformed request: Content-Type must be application/json')
  }
  const length = headers.get('content-length')
  const declared = Number(length ?? '0')
  if (declared > limits.maxBytes) throw new RelayError('MALFORMED_ORDER', tooLarge(limits.maxBytes).message, { cause: bodyLeftUnread })
  // A declared length is enforced by the server (no more bytes are read as body), so
  // it can be read whole; a chunked body (no length) is counted as it arrives.
  const text = length !== null && Number.isSafeInteger(declared) ? await readDeclared(request, limits) : decodeUtf8(await readLimited(request.body, limits))
  // `text()` decodes as browsers do, each invalid UTF-8 sequence becoming U+FFFD: the
  // strict check for the price of a search, where reading the bytes and decoding them
  // strictly cost every request 0.6–0.7 µs more (alternating in one process). A valid
  // body cannot hold U+FFFD either: every field of a request is ASCII (hex, decimal
  // digits, numbers), and an unknown key is refused.
  if (text.includes('\uFFFD')) throw notUtf8()
  try {
    return JSON.parse(text)
  } catch {
    throw new RelayError('MALFORMED_ORDER', 'malformed request: body is not valid JSON')
  }
}

/** A chunked body's bytes as text, strictly: invalid UTF-8 is refused. */
function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes)
  } catch {
    throw notUtf8()
  }
}

/** A body of declared length (at most `maxBytes`) as text, within the deadline. */
function readDeclared(request: Request, { deadlineMs, deadlines }: BodyLimits): Promise<string> {
  if (deadlines) return deadlines.within(request.text(), () => tooSlow(deadlineMs)).catch(brokenRead)
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(tooSlow(deadlineMs)), deadlineMs)))
  return Promise.race([request.text(), late])
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

const notUtf8 = () => new RelayError('MALFORMED_ORDER', 'malformed request: body is not valid UTF-8 (or holds U+FFFD, which no field of a request can)')
const tooLarge = (max: number) => new RelayError('MALFORMED_ORDER', `malformed request: body is larger than ${max} bytes`)
const tooSlow = (ms: number) => new RelayError('MALFORMED_ORDER', `malformed request: the body did not arrive within ${ms} ms; send it at once`)
