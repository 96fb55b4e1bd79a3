import type { Context } from 'hono'
import { RelayError } from '../errors.ts'

// One decoder for every request: `decode` without `stream` keeps no state between calls.
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Largest `POST /broker` body accepted; a real request is well under 2 KiB. */
export const maxBodyBytes = 64 * 1024

/**
 * The request body as JSON, or MALFORMED_ORDER: wrong content type, too large,
 * or not JSON. The body text is never quoted back.
 */
export async function readJsonBody(c: Context): Promise<unknown> {
  const type = c.req.header('content-type') ?? ''
  if (!/^application\/(.+\+)?json\b/i.test(type.trim())) {
    throw new RelayError('MALFORMED_ORDER', 'malformed request: Content-Type must be application/json')
  }
  const declared = Number(c.req.header('content-length') ?? '0')
  if (declared > maxBodyBytes) throw tooLarge()
  let text: string
  try {
    const buffer = await c.req.arrayBuffer()
    if (buffer.byteLength > maxBodyBytes) throw tooLarge()
    text = utf8.decode(buffer)
  } catch (error) {
    if (error instanceof RelayError) throw error
    throw new RelayError('MALFORMED_ORDER', 'malformed request: body is not valid UTF-8')
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new RelayError('MALFORMED_ORDER', 'malformed request: body is not valid JSON')
  }
}

const tooLarge = () => new RelayError('MALFORMED_ORDER', `malformed request: body is larger than ${maxBodyBytes} bytes`)
