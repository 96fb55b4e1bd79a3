import {
  type RelayerInfo,
  RelayerInfoSchema,
  type RelayRequest,
  type RelaySuccess,
  RelaySuccessSchema,
} from '../wire/index.ts'
import { followedOrder, followStatus } from './followStatus.ts'
import { readAnswer } from './readAnswer.ts'
import { SubmitError } from './SubmitError.ts'

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
      const get = (path: string, signal: AbortSignal) => call(path, { method: 'GET', headers: { accept: 'application/json' } }, `GET ${path}`, signal)
      for (;;) {
        try {
          return await post()
        } catch (error) {
          const orderHash = followedOrder(error)
          if (!orderHash || Date.now() >= deadline) throw error
          // Pending until the deadline: the relayer's own 502 is the answer.
          if (!(await followStatus(get, orderHash, deadline))) throw error
        }
      }
    },
  }
}
