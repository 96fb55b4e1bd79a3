import type { BrokerStatus } from '../wire/index.ts'
import { type WatchError, watchEventStream } from './watchEventStream.ts'

export type WatchOrderParameters = {
  /** The relayer's base URL, e.g. `http://127.0.0.1:8787`. */
  url: string
  orderHash: string
  /** The order's status (`GET /broker/{orderHash}`): now, then at each change, the last one final (settled or reverted). */
  onStatus: (status: BrokerStatus) => void
  /** A problem: a drop (resumed by itself), a busy relayer (retried), or a refused request (the watch stops: `error.fatal`). */
  onError?: (error: WatchError) => void
  fetch?: typeof fetch
}

/**
 * Follows one order on a relayer until it is final (`GET /broker/{orderHash}` as
 * Server-Sent Events), in viem's watch style: `onStatus` for each change, and a
 * function to stop earlier. The watch ends by itself after a `settled` or `reverted`
 * status; a drop before that is resumed with `Last-Event-ID` (the status last seen is
 * not delivered again). Works in browsers and Node 20.
 *
 * @example
 * import { watchOrder } from 'order-relay/client'
 * const unwatch = watchOrder({ url: relayerUrl, orderHash, onStatus: (status) => console.log(status.status, status.txHash) })
 */
export function watchOrder(parameters: WatchOrderParameters): () => void {
  let final = false
  return watchEventStream({
    url: `${parameters.url.replace(/\/+$/, '')}/broker/${parameters.orderHash}`,
    ...(parameters.fetch ? { fetch: parameters.fetch } : {}),
    ...(parameters.onError ? { onError: parameters.onError } : {}),
    isDone: () => final,
    onMessage(message) {
      if (message.event !== 'status') return
      const status = JSON.parse(message.data) as BrokerStatus
      final = status.status === 'settled' || status.status === 'reverted'
      parameters.onStatus(status)
    },
  })
}
