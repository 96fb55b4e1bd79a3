import { createMiddleware } from 'hono/factory'
import type { Logger } from '../../shared/index.ts'

export type AccessLogVariables = { code: string | undefined }

/**
 * One line per request: `METHOD PATH STATUS CODE`, and nothing else: no query
 * string, no client address, no body (SPEC.md 4.3).
 */
export function accessLog(logger: Logger) {
  return createMiddleware<{ Variables: AccessLogVariables }>(async function accessLog(c, next) {
    await next()
    const { method, path } = c.req
    const { status } = c.res
    const code = c.get('code') ?? '-'
    logger.info(`${method} ${path} ${status} ${code}`, { method, path, status, code })
  })
}
