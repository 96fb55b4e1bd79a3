// Run by Node 20 against the installed package (test/client/watchPackaged.test.ts):
// follows an indexer's activity from block 0 and one order on a relayer, prints a line
// once the replay is in (the test then cuts the connection and adds an event), and at
// the end one JSON line: the events held, the removals, the errors and the statuses.
import { watchActivity, watchOrder } from 'order-relay/client'

const input = JSON.parse(process.argv[2])
const held = []
const removed = []
const errors = []
let announced = false
const activity = await new Promise((resolve) => {
  const unwatch = watchActivity({
    url: input.indexerUrl,
    filters: { fromBlock: 0n },
    onEvents(events) {
      held.push(...events)
      if (!announced && held.length >= input.replayed) {
        announced = true
        console.log(`replayed ${held.length}`)
      }
      if (held.length >= input.total) {
        unwatch()
        resolve(held)
      }
    },
    onRemoved: (events) => removed.push(...events),
    onError: (error) => errors.push({ code: error.code, fatal: error.fatal }),
  })
})
const statuses = await new Promise((resolve) => {
  const seen = []
  watchOrder({
    url: input.relayerUrl,
    orderHash: input.orderHash,
    onStatus(status) {
      seen.push(status)
      if (status.status === 'settled') resolve(seen)
    },
    onError: (error) => errors.push({ code: error.code, fatal: error.fatal }),
  })
})
console.log(JSON.stringify({ events: activity, removed, errors, statuses }))
