// `bun scripts/bench/lib/streamClients.ts <stream URL> <clients> <ms>`: opens <clients>
// GET /activity/stream connections, prints `connected <n>` once all answered, keeps
// reading for <ms>, then prints one JSON line: for each block whose events arrived, the
// time (ms since the epoch, sub-millisecond) each client received them, and how many
// events each client got in all. Run in its own process so that the clients' work is
// not the benchmark's (scripts/bench/streams.ts).
export {}

const [url, clientsArg, msArg] = Bun.argv.slice(2)
if (!url || !clientsArg || !msArg) throw new Error('usage: streamClients.ts <stream URL> <clients> <ms>')
const clients = Number(clientsArg)
const ms = Number(msArg)
const now = () => performance.timeOrigin + performance.now()

/** block → receive times, one per client that got that block's events. */
const received = new Map<string, number[]>()
const counts = new Array<number>(clients).fill(0)
const controllers: AbortController[] = []
let connected = 0

async function follow(index: number) {
  const controller = new AbortController()
  controllers.push(controller)
  const response = await fetch(url!, { headers: { accept: 'text/event-stream' }, signal: controller.signal })
  if (!response.ok || !response.body) throw new Error(`client ${index}: ${url} answered ${response.status}`)
  connected++
  const decoder = new TextDecoder()
  let buffer = ''
  try {
    for await (const chunk of response.body) {
      const at = now()
      buffer += decoder.decode(chunk, { stream: true })
      let end = buffer.indexOf('\n\n')
      while (end >= 0) {
        const message = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        end = buffer.indexOf('\n\n')
        if (!message.includes('event: events')) continue
        const data = message.slice(message.indexOf('data: ') + 6)
        const { events } = JSON.parse(data) as { events: { blockNumber: string }[] }
        counts[index]! += events.length
        for (const block of new Set(events.map((event) => event.blockNumber))) {
          let times = received.get(block)
          if (!times) received.set(block, (times = []))
          times.push(at)
        }
      }
    }
  } catch {
    // Aborted at the end.
  }
}

const following = Array.from({ length: clients }, (_, index) => follow(index))
const deadline = Date.now() + 60_000
while (connected < clients) {
  if (Date.now() > deadline) throw new Error(`only ${connected} of ${clients} streams connected within 60 s`)
  await Bun.sleep(10)
}
console.log(`connected ${connected}`)
await Bun.sleep(ms)
for (const controller of controllers) controller.abort()
await Promise.all(following)
console.log(JSON.stringify({ received: Object.fromEntries(received), counts }))
