import type { Context } from 'hono'
import { type EdgeErrorCode, type EdgeRejection, edgeErrorCodes } from '../../wire/index.ts'
import type { AccessLogVariables } from '../accessLog.ts'

/** An edge rule's refusal of one request (SPEC.md 7.2): its code, message and headers. */
export type EdgeRefusal = { code: EdgeErrorCode; message: string; headers?: Record<string, string> }

/** The `{ok:false, code, message}` body of a refusal, and its status. */
export function refusalAnswer(refusal: EdgeRefusal): { status: number; body: EdgeRejection } {
  return { status: edgeErrorCodes[refusal.code].status, body: { ok: false, code: refusal.code, message: refusal.message } }
}

/** Answers a refusal on a hono route, and records its code for the access log line. */
export function edgeReject(c: Context<{ Variables: AccessLogVariables }>, refusal: EdgeRefusal): Response {
  c.set('code', refusal.code)
  const { status, body } = refusalAnswer(refusal)
  return c.json(body, status as (typeof edgeErrorCodes)[EdgeErrorCode]['status'], refusal.headers)
}
