import type { Context } from 'hono'
import { type EdgeErrorCode, type EdgeRejection, edgeErrorCodes } from '../../wire/index.ts'
import type { AccessLogVariables } from '../http/accessLog.ts'

/**
 * Answers an edge rejection `{ok:false, code, message}` (SPEC.md 7.2) with the code's
 * status, and records the code for the access log line.
 */
export function edgeReject(
  c: Context<{ Variables: AccessLogVariables }>,
  code: EdgeErrorCode,
  message: string,
  headers?: Record<string, string>,
): Response {
  c.set('code', code)
  const body: EdgeRejection = { ok: false, code, message }
  return c.json(body, edgeErrorCodes[code].status, headers)
}
