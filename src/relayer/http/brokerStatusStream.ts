import { createHash } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import { streamSSE } from 'hono/streaming'
import { type BrokerStatus, isFinalStatus } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import type { AccessLogVariables } from '../accessLog.ts'
import { brokerStatus } from './brokerStatus.ts'

/** A quiet stream gets a comment line this often, so proxies keep it open. */
const heartbeatMs = 15_000

/** A status's message id: changes exactly when the status does, so a reconnect with Last-Event-ID is not sent the same one again. */
const statusId = (status: BrokerStatus) => createHash('sha256').update(JSON.stringify(status)).digest('base64url').slice(0, 16)

/**
 * `GET /broker/{orderHash}` with `Accept: text/event-stream`: the order's BrokerStatus
 * (the JSON route's, brokerStatus.ts) as Server-Sent Events `status` messages, the
 * current one first and then each change (read every RELAYER_RECEIPT_POLL_MS), until
 * it is final (`isFinalStatus`: settled or reverted in a block RELAYER_CONFIRMATIONS deep), after which the stream ends. A reconnect with the last
 * message's id as `Last-Event-ID` skips that status if it has not changed. A malformed
 * orderHash or an RPC failure before the first status answers as the JSON route does;
 * a failure later is retried at the next read. Any other `Accept` goes on to the JSON route.
 *
 * @example
 * app.get('/broker/:orderHash', brokerStatusStream(context))
 */
export function brokerStatusStream(context: Pick<RelayerContext, 'journal' | 'settlements' | 'outcomes' | 'client' | 'config' | 'logger'>): MiddlewareHandler<{ Variables: AccessLogVariables }> {
  return async function brokerStatusStream(c, next) {
    if (!(c.req.header('accept') ?? '').includes('text/event-stream')) return next()
    const raw = c.req.param('orderHash') ?? ''
    const first = await brokerStatus(context, raw)
    c.set('code', 'OK')
    // Quiet up to a heartbeat: Bun.serve's idle timeout must not close it.
    ;(c.env as { timeout?: (request: Request, seconds: number) => void } | undefined)?.timeout?.(c.req.raw, 0)
    const resumedAt = c.req.header('last-event-id')
    return streamSSE(c, async (stream) => {
      const ended = new AbortController()
      stream.onAbort(() => ended.abort())
      let sent = resumedAt
      let lastWrite = performance.now()
      const send = async (status: BrokerStatus, retry?: number) => {
        sent = statusId(status)
        await stream.writeSSE({ event: 'status', id: sent, data: JSON.stringify(status), ...(retry === undefined ? {} : { retry }) })
        lastWrite = performance.now()
      }
      if (statusId(first) !== sent || isFinalStatus(first)) await send(first, 2_000)
      if (isFinalStatus(first)) return
      while (!stream.aborted) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, context.config.receiptPollMs)
          function done() {
            clearTimeout(timer)
            ended.signal.removeEventListener('abort', done)
            resolve()
          }
          ended.signal.addEventListener('abort', done, { once: true })
        })
        if (stream.aborted) return
        let status: BrokerStatus
        try {
          status = await brokerStatus(context, raw)
        } catch {
          continue
        }
        if (statusId(status) !== sent) await send(status)
        if (isFinalStatus(status)) return
        if (performance.now() - lastWrite >= heartbeatMs) {
          await stream.write(': heartbeat\n\n')
          lastWrite = performance.now()
        }
      }
    })
  }
}
