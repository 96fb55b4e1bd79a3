// watchActivity and watchOrder (src/client) against a real indexer and a real relayer
// on anvil: events as they are indexed, filters, reorg retractions, resuming after the
// connection drops (no gap, no duplicate), an order followed from pending to settled,
// and GET /broker/{orderHash} as Server-Sent Events for any client.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Hex } from 'viem'
import { type WatchError, watchActivity, watchOrder } from '../../src/client/index.ts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import type { ActivityEvent, ActivitySnapshot, ActivityStreamStatus, BrokerStatus } from '../../src/wire/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { proposeLien, runRegistryFlow } from '../indexer/registryFlow.ts'
import { openSse } from '../indexer/sseReader.ts'
import { startTcpProxy } from '../indexer/tcpProxy.ts'
import { startTestIndexer, type TestIndexer } from '../indexer/startTestIndexer.ts'
import { waitFor } from '../helpers/waitFor.ts'

let devnet: Devnet
let indexer: TestIndexer
let relayer: TestRelayer
let relayerNonceBefore = 0
const stops: (() => unknown)[] = []

beforeAll(async () => {
  devnet = await startDevnet()
  await runRegistryFlow(devnet, 'watch')
  indexer = await startTestIndexer(devnet, { loop: true })
  relayer = await startTestRelayer(devnet)
  relayerNonceBefore = await devnet.publicClient.getTransactionCount({ address: devnetAccounts.relayer.address })
  await waitFor('the indexer to reach the head', async () => (await indexer.get('/ready')).status === 200)
}, 60_000)

afterAll(async () => {
  for (const stop of stops.reverse()) await stop()
  await devnet?.testClient.setAutomine(true).catch(() => {})
  await relayer?.stop()
  await indexer?.stop()
  await devnet?.stop()
})

const served = async (on = indexer) => ((await on.get('/activity')).json as ActivitySnapshot).events
const key = (event: ActivityEvent) => `${event.blockNumber}.${event.logIndex}.${event.transactionHash}`

/** A client's view: what onEvents and onRemoved left it holding, every callback kept. */
function collector() {
  const seen = { added: [] as ActivityEvent[], removed: [] as ActivityEvent[], statuses: [] as ActivityStreamStatus[], errors: [] as WatchError[], resets: [] as string[] }
  return {
    seen,
    held: () => {
      const gone = new Set(seen.removed.map(key))
      return seen.added.filter((event) => !gone.has(key(event)))
    },
    callbacks: {
      onEvents: (events: ActivityEvent[]) => seen.added.push(...events),
      onRemoved: (events: ActivityEvent[]) => seen.removed.push(...events),
      onStatus: (status: ActivityStreamStatus) => seen.statuses.push(status),
      onError: (error: WatchError) => seen.errors.push(error),
      onReset: (reason: string) => seen.resets.push(reason),
    },
  }
}

describe('watchActivity', () => {
  test('delivers the retained events from fromBlock, then new ones; filters by name and address; a reorg calls onRemoved; unwatch stops it', async () => {
    const all = collector()
    const unwatch = watchActivity({ url: indexer.url, filters: { fromBlock: 0n }, ...all.callbacks })
    stops.push(unwatch)
    const proposed = collector()
    const { inbox } = devnet.manifest.contracts
    const unwatchProposed = watchActivity({ url: `${indexer.url}/`, filters: { name: ['LienProposed'], address: inbox, fromBlock: 0 }, ...proposed.callbacks })
    stops.push(unwatchProposed)
    await waitFor('the replay', async () => all.held().length === (await served()).length)

    const snapshot = await devnet.testClient.snapshot()
    const orphan = await proposeLien(devnet, 'watched orphan')
    await devnet.testClient.mine({ blocks: 1 })
    await waitFor('the orphan', () => proposed.held().some((event) => event.transactionHash === orphan.receipt.transactionHash))
    await devnet.testClient.revert({ id: snapshot })
    const replacement = await proposeLien(devnet, 'watched replacement')
    await devnet.testClient.mine({ blocks: 1 })
    await waitFor('the replacement', () => all.held().some((event) => event.transactionHash === replacement.receipt.transactionHash))
    expect(all.seen.removed.map((event) => event.transactionHash)).toEqual([orphan.receipt.transactionHash])
    expect(proposed.seen.removed.map((event) => event.transactionHash)).toEqual([orphan.receipt.transactionHash])
    expect(all.held()).toEqual(await served())
    expect(proposed.held()).toEqual((await served()).filter((event) => event.name === 'LienProposed' && event.address === inbox))
    expect(all.seen.statuses[0]).toMatchObject({ stale: false })
    expect([...all.seen.errors, ...proposed.seen.errors]).toEqual([])

    unwatch()
    const count = all.seen.added.length
    const after = await proposeLien(devnet, 'after unwatch')
    await waitFor('the still-watching client to get it', () => proposed.held().some((event) => event.transactionHash === after.receipt.transactionHash))
    expect(all.seen.added.length).toBe(count)
    unwatchProposed()
  })

  test('the connection drops (the network between them goes down): onError says so, and it resumes with Last-Event-ID: nothing missed, nothing twice', async () => {
    const path = await startTcpProxy(Number(new URL(indexer.url).port))
    stops.push(() => path.stop())
    const client = collector()
    const unwatch = watchActivity({ url: `http://127.0.0.1:${path.port}`, ...client.callbacks })
    stops.push(unwatch)
    await waitFor('the first status', () => client.seen.statuses.length > 0)
    const first = await proposeLien(devnet, 'before the drop')
    await waitFor('the first proposal', () => client.held().some((event) => event.transactionHash === first.receipt.transactionHash))
    const cursor = unwatch.cursor()
    expect(cursor).toMatch(/^\d+\.[0-9a-f]{8}$/)

    await path.down()
    const missed = [await proposeLien(devnet, 'during the drop 1'), await proposeLien(devnet, 'during the drop 2')]
    await waitFor('the drop to be reported', () => client.seen.errors.some((error) => error.code === 'NETWORK'))
    await path.up()
    await waitFor('the missed proposals', () => client.held().some((event) => event.transactionHash === missed[1]!.receipt.transactionHash))
    const now = await served()
    const since = now.filter((event) => BigInt(event.blockNumber) >= first.receipt.blockNumber)
    expect(client.held()).toEqual(since)
    expect(new Set(client.seen.added.map(key)).size).toBe(client.seen.added.length)
    expect(client.seen.errors.every((error) => error.code === 'NETWORK' && !error.fatal)).toBe(true)
    unwatch()

    // A new watch from the cursor the first one had: exactly what came after it.
    const later = collector()
    const resumed = watchActivity({ url: indexer.url, cursor, ...later.callbacks })
    stops.push(resumed)
    await waitFor('the events after the cursor', () => later.held().length === since.length - 1)
    expect(later.held()).toEqual(since.slice(1))
    resumed()
  })

  test('a refused request (a bad filter) is a fatal WatchError naming the problem; the watch stops', async () => {
    const client = collector()
    stops.push(watchActivity({ url: indexer.url, filters: { address: 'not-an-address' }, ...client.callbacks }))
    await waitFor('the error', () => client.seen.errors.length > 0)
    const [error] = client.seen.errors
    expect([error!.code, error!.status, error!.fatal]).toEqual(['REFUSED', 400, true])
    expect(error!.message).toContain('(BAD_QUERY: address: must be an address (0x followed by 40 hex digits), or several separated by commas)')
  })
})

describe('watchOrder and GET /broker/{orderHash} as Server-Sent Events', () => {
  test('an order followed from pending to settled: one status per change, the stream ends once final', async () => {
    await devnet.testClient.setAutomine(false)
    const request = await signed(devnet, allocationOrder(devnet))
    const statuses: BrokerStatus[] = []
    const errors: WatchError[] = []
    let settledTx: Hex | undefined
    try {
      const answer = relayer.post(request)
      await waitFor('the relayer to broadcast it', async () => ((await (await fetch(`${relayer.url}/broker/${request.orderHash}`)).json()) as BrokerStatus).status === 'pending')
      const raw = await openSse(`${relayer.url}/broker/${request.orderHash}`)
      stops.push(() => raw.close())
      expect([raw.response.status, raw.response.headers.get('content-type'), raw.response.headers.get('access-control-allow-origin')]).toEqual([200, 'text/event-stream', '*'])
      const unwatch = watchOrder({ url: relayer.url, orderHash: request.orderHash!, onStatus: (status) => statuses.push(status), onError: (error) => errors.push(error) })
      stops.push(unwatch)
      await waitFor('the pending status', () => statuses.length === 1)
      await raw.until('the pending status on the raw stream', () => raw.messages.length === 1)
      await devnet.testClient.mine({ blocks: 1 })
      settledTx = (await answer).body.txHash as Hex
      await waitFor('the settled status', () => statuses.at(-1)?.status === 'settled')
      await raw.until('the raw stream to end after the final status', () => raw.ended)
    } finally {
      await devnet.testClient.setAutomine(true)
    }
    const receipt = await devnet.publicClient.getTransactionReceipt({ hash: settledTx! })
    const orderHash = request.orderHash!
    const settled: BrokerStatus = { orderHash, status: 'settled', txHash: settledTx, blockNumber: receipt.blockNumber.toString(), confirmations: 1, final: true }
    expect(statuses).toEqual([{ orderHash, status: 'pending', txHash: settledTx }, settled])
    expect(errors).toEqual([])
    // The JSON route is unchanged for any other Accept.
    expect(await (await fetch(`${relayer.url}/broker/${request.orderHash}`, { headers: { accept: 'application/json' } })).json()).toEqual(settled)
    expect(relayer.logger.lines.filter((line) => line.startsWith(`GET /broker/${request.orderHash}`)).every((line) => line.endsWith(' 200 OK'))).toBe(true)
  })

  test('a final order: one status and the end; a reconnect with that id gets it once more and the end, so a client always learns it is final', async () => {
    const request = await signed(devnet, allocationOrder(devnet))
    expect((await relayer.post(request)).status).toBe(200)
    const first = await openSse(`${relayer.url}/broker/${request.orderHash}`)
    await first.until('the end', () => first.ended)
    expect(first.messages.map((message) => (message.data as BrokerStatus).status)).toEqual(['settled'])
    const again = await openSse(`${relayer.url}/broker/${request.orderHash}`, { 'last-event-id': first.lastEventId! })
    await again.until('the end', () => again.ended)
    expect(again.messages).toEqual(first.messages)
  })

  test('an unknown order streams `unknown` until the client leaves; a malformed orderHash answers 400 MALFORMED_ORDER as JSON', async () => {
    const unknown = await openSse(`${relayer.url}/broker/0x${'ab'.repeat(32)}`)
    stops.push(() => unknown.close())
    await unknown.until('the first status', () => unknown.messages.length === 1)
    expect(unknown.messages[0]).toMatchObject({ event: 'status', data: { status: 'unknown' } })
    await unknown.close()
    const bad = await fetch(`${relayer.url}/broker/0x1234`, { headers: { accept: 'text/event-stream' } })
    expect([bad.status, await bad.json()]).toEqual([400, { ok: false, code: 'MALFORMED_ORDER', message: 'malformed orderHash: must be 32 bytes of hex: 0x followed by 64 hex digits' }])
  })

  test('money safety: one transaction per order sent, each settled, none reverted', async () => {
    const sent = (await devnet.publicClient.getTransactionCount({ address: devnetAccounts.relayer.address })) - relayerNonceBefore
    expect(sent).toBe(2)
    expect(relayer.logger.lines.filter((line) => line.startsWith('POST /broker'))).toEqual(['POST /broker 200 OK', 'POST /broker 200 OK'])
  })
})
