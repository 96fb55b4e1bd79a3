import * as v from 'valibot'
import {
  type BrokerStatus,
  BrokerStatusSchema,
  type RelayerInfo,
  RelayerInfoSchema,
  type RelayRequest,
  type RelaySuccess,
  RelaySuccessSchema,
} from '../wire/index.ts'
import { followedOrder, followStatus } from './followStatus.ts'
import { readAnswer } from './readAnswer.ts'
import { SubmitError } from './SubmitError.ts'
import { waitForOrder, type WaitForOrderOptions } from './waitForOrder.ts'

/**
 * What `brokerAsync` resolves with: the order's tx broadcast and awaiting its block
 * (`pending`, the relayer answered 202), or already settled (the relayer answered at
 * once, 200, with the `success`). `location` is the order's status route.
 */
export type BrokerSubmitted =
  | { status: 'pending'; orderHash: string; txHash: string; location: string }
  | { status: 'settled'; orderHash: string; txHash: string; location: string; success: RelaySuccess }

/** A 202's body: the status of an order whose tx was broadcast. */
const PendingSchema = v.object({ ...BrokerStatusSchema.entries, status: v.literal('pending'), txHash: BrokerStatusSchema.entries.txHash.wrapped })

export type RelayClientOptions = {
  /** The relayer's base URL, e.g. `http://127.0.0.1:8787` (no trailing path). */
  url: string
  /** A fetch implementation (default: the global `fetch`). */
  fetch?: typeof fetch
  /**
   * Give up on a call after this many milliseconds (`NETWORK`); default: no limit. For
   * `broker`, also how long a 502 that says to follow the status route is followed,
   * from the call's start (default: `followLimitMs`).
   */
  timeoutMs?: number
}

/** How long `broker` follows an order's status route when `timeoutMs` is not set. */
export const followLimitMs = 120_000

export type RelayClient = {
  /** The relayer's base URL, without a trailing slash. */
  readonly url: string
  /**
   * `GET /info`: the relayer's fee floor, chains and gas address.
   * @throws SubmitError
   */
  info(): Promise<RelayerInfo>
  /**
   * `POST /broker`: relays a signed request and resolves once it settled on chain. A
   * 502 that leaves the order's fate open ("follow GET /broker/{orderHash}": no receipt
   * in time, a tx the relayer may replace) is followed: the status route is polled until
   * the order is settled or reverted, then the request is sent again for its answer
   * (it is never sent twice), all within `timeoutMs` from the call's start.
   * @throws SubmitError with the relayer's code, an edge code, `BAD_RESPONSE` or `NETWORK`
   */
  broker(request: RelayRequest): Promise<RelaySuccess>
  /**
   * `POST /broker` with `Prefer: respond-async` (RFC 7240): resolves once the tx is
   * broadcast (202), without waiting for its block; follow it with `waitForOrder`.
   * Refusals throw as from `broker`.
   * @throws SubmitError with the relayer's code, an edge code, `BAD_RESPONSE` or `NETWORK`
   */
  brokerAsync(request: RelayRequest): Promise<BrokerSubmitted>
  /**
   * `GET /broker/{orderHash}`: `pending`, `settled` (by any relayer), `reverted` (this
   * relayer's tx) or `unknown`, with the tx and its block.
   * @throws SubmitError `MALFORMED_ORDER` for a malformed hash, `UPSTREAM_RPC`, `BAD_RESPONSE` or `NETWORK`
   */
  status(orderHash: string): Promise<BrokerStatus>
  /**
   * Reads `status` until the order is settled or reverted (every `pollingInterval`
   * ms, default 500) and returns that status.
   * @throws SubmitError `TIMEOUT` after `timeout` ms (default 120000), or the code of a failed read
   */
  waitForOrder(orderHash: string, options?: WaitForOrderOptions): Promise<BrokerStatus>
}

/**
 * A client for one relayer. Every answer is checked against the wire schemas: a
 * failure throws a `SubmitError` carrying the relayer's code, and an answer that is
 * not what a relayer sends (HTML, other JSON) is `BAD_RESPONSE`; no answer at all
 * is `NETWORK`.
 *
 * @example
 * import { createRelayClient, signOrder } from 'order-relay/client'
 * const client = createRelayClient({ url: 'http://127.0.0.1:8787' })
 * const { feeFloorBps } = await client.info()
 * const request = await signOrder({ account, order, broker, chainId: 421614, client: publicClient })
 * const { txHash, feeCollected } = await client.broker(request)
 * // or: hand the order over, then follow it
 * const { orderHash } = await client.brokerAsync(request)
 * const { status } = await client.waitForOrder(orderHash, { timeout: 60_000 })
 */
export function createRelayClient(options: RelayClientOptions): RelayClient {
  const url = options.url.replace(/\/+$/, '')
  const fetchImpl = options.fetch ?? fetch

  async function call(path: string, init: RequestInit, what: string, limit: AbortSignal | undefined = undefined): Promise<Response> {
    const signal = limit ?? (options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs))
    try {
      return await fetchImpl(`${url}${path}`, { ...init, ...(signal ? { signal } : {}) })
    } catch (error) {
      const timedOut = (error as Error)?.name === 'TimeoutError'
      const why = timedOut ? `no answer within ${options.timeoutMs} ms` : 'could not reach the relayer'
      throw new SubmitError('NETWORK', `${what} at ${url}: ${why}; retry or try another relayer`, { status: 0, cause: error })
    }
  }

  async function status(orderHash: string): Promise<BrokerStatus> {
    const response = await call(`/broker/${orderHash}`, { method: 'GET', headers: { accept: 'application/json' } }, 'GET /broker/{orderHash}')
    return readAnswer(response, BrokerStatusSchema, 'GET /broker/{orderHash}')
  }

  return {
    url,
    async info() {
      const response = await call('/info', { method: 'GET', headers: { accept: 'application/json' } }, 'GET /info')
      return readAnswer(response, RelayerInfoSchema, 'GET /info')
    },
    async broker(request) {
      const deadline = Date.now() + (options.timeoutMs ?? followLimitMs)
      const post = async () => {
        const init = { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(request) }
        const limit = options.timeoutMs === undefined ? undefined : AbortSignal.timeout(Math.max(1, deadline - Date.now()))
        const response = await call('/broker', init, 'POST /broker', limit)
        return readAnswer(response, RelaySuccessSchema, 'POST /broker')
      }
      for (;;) {
        try {
          return await post()
        } catch (error) {
          const orderHash = followedOrder(error)
          if (!orderHash || Date.now() >= deadline) throw error
          // Pending until the deadline: the relayer's own 502 is the answer.
          if (!(await followStatus(status, orderHash, deadline))) throw error
        }
      }
    },
    async brokerAsync(request) {
      const response = await call(
        '/broker',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', prefer: 'respond-async' },
          body: JSON.stringify(request),
        },
        'POST /broker',
      )
      if (response.status !== 202) {
        const success = await readAnswer(response, RelaySuccessSchema, 'POST /broker')
        return { status: 'settled', orderHash: success.orderHash, txHash: success.txHash, location: `${url}/broker/${success.orderHash}`, success }
      }
      const pending = await readAccepted(response)
      return { ...pending, location: new URL(response.headers.get('location') ?? `/broker/${pending.orderHash}`, `${url}/`).href }
    },
    status,
    waitForOrder(orderHash, waitOptions) {
      return waitForOrder((hash) => this.status(hash), orderHash, waitOptions)
    },
  }
}

/** A 202 to `Prefer: respond-async`: the pending order with its tx, else `BAD_RESPONSE`. */
async function readAccepted(response: Response): Promise<{ status: 'pending'; orderHash: string; txHash: string }> {
  let body: unknown
  try {
    body = JSON.parse(await response.text())
  } catch (error) {
    throw new SubmitError('BAD_RESPONSE', 'POST /broker: answered 202 with a body that is not JSON; is this URL a relayer?', { status: 202, cause: error })
  }
  const parsed = v.safeParse(PendingSchema, body)
  if (!parsed.success) throw new SubmitError('BAD_RESPONSE', 'POST /broker: answered 202 without the pending order and its txHash', { status: 202 })
  return { status: 'pending', orderHash: parsed.output.orderHash, txHash: parsed.output.txHash }
}
