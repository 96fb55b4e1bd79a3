import type { Context } from 'hono'
import type { Logger } from '../../shared/index.ts'

export type AccessLogVariables = { code: string | undefined }

/** Longest path written to the log; the rest is cut (a path is an attacker's choice). */
const maxLoggedPath = 256

/**
 * One line per request: `METHOD PATH STATUS CODE`, and nothing else: no query
 * string, no client address, no body (SPEC.md 4.3). The path is hono's
 * percent-decoded one, so a control character, a space or a line separator in it is
 * written back percent-encoded: `/%0Afake` can never forge a second log line.
 */
export function logAccess<V extends AccessLogVariables>(logger: Logger, c: Context<{ Variables: V }>) {
  const { method } = c.req
  const raw = c.req.path
  const path = raw === '/broker' ? raw : loggablePath(raw)
  logAnswer(logger, method, path, c.res.status, (c.get as (key: 'code') => string | undefined)('code') ?? '-')
}

/** The access line itself, for a route answered outside hono; `path` must already be loggable. */
export function logAnswer(logger: Logger, method: string, path: string, status: number, code: string) {
  logger.info(`${method} ${path} ${status} ${code}`, { method, path, status, code })
}

/** `path` with C0/C1 controls, DEL, whitespace and Unicode line/paragraph separators percent-encoded, cut at 256 characters. */
export function loggablePath(path: string): string {
  const escaped = path.replace(/[\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200f\u2028-\u202f\u205f\u3000\ufeff]/g, (char) => encodeURIComponent(char))
  return escaped.length > maxLoggedPath ? `${escaped.slice(0, maxLoggedPath)}…` : escaped
}
