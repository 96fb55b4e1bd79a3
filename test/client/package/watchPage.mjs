// A dApp page bundled from the installed package (test/client/watchPackaged.test.ts):
// follows an indexer's activity with watchActivity and an order with watchOrder, and
// the same stream with the browser's own EventSource, all cross-origin.
import { watchActivity, watchOrder } from 'order-relay/client'

window.watchFromPage = (input) => {
  const seen = { held: [], errors: [], statuses: [], native: [], nativeIds: [], nativeErrors: 0 }
  window.watched = seen
  watchActivity({
    url: input.indexerUrl,
    filters: { fromBlock: 0 },
    onEvents: (events) => seen.held.push(...events),
    onError: (error) => seen.errors.push(error.code),
  })
  watchOrder({ url: input.relayerUrl, orderHash: input.orderHash, onStatus: (status) => seen.statuses.push(status) })
  const source = new EventSource(`${input.indexerUrl}/activity/stream?fromBlock=0`)
  source.addEventListener('events', (message) => {
    seen.native.push(...JSON.parse(message.data).events)
    seen.nativeIds.push(message.lastEventId)
  })
  source.addEventListener('error', () => seen.nativeErrors++)
}
