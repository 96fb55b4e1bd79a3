// RELAYER_WS_URL: new heads pushed over a WebSocket (eth_subscribe newHeads) make the
// receipt watcher look as each block comes. Polls are set 60 s apart here, so an order
// on a 1-second-block chain settles within its 5 s receipt timeout only if a pushed
// head triggered the look; a feed that drops is said once, polling goes on, and it
// subscribes again when the node is back.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Server, ServerWebSocket } from 'bun'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { readRelayerConfig } from '../../src/relayer/index.ts'
import { createHeadFeed } from '../../src/relayer/submitter/headFeed.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'

let devnet: Devnet
const relayers: TestRelayer[] = []
const proxies: Array<{ stop(): void }> = []

beforeAll(async () => {
  devnet = await startDevnet()
  // A block every second, as a real chain: the tx waits for its block.
  await devnet.testClient.setAutomine(false)
  await devnet.testClient.setIntervalMining({ interval: 1 })
}, 60_000)
afterAll(async () => {
  for (const each of relayers) await each.stop()
  for (const each of proxies) each.stop()
  await devnet?.stop()
})

/** A WebSocket proxy to anvil that counts subscriptions and can cut every connection (and refuse new ones) until healed. */
function wsProxy() {
  const upstream = devnet.rpcUrl.replace(/^http/, 'ws')
  let cut = false
  let subscriptions = 0
  const open = new Set<ServerWebSocket<{ node: WebSocket; queue: string[] }>>()
  const server: Server<{ node: WebSocket; queue: string[] }> = Bun.serve<{ node: WebSocket; queue: string[] }, never>({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request, server) {
      if (cut) return new Response('down', { status: 503 })
      const node = new WebSocket(upstream)
      return server.upgrade(request, { data: { node, queue: [] } }) ? undefined : new Response('no upgrade', { status: 400 })
    },
    websocket: {
      open(ws) {
        open.add(ws)
        ws.data.node.onmessage = ({ data }) => ws.send(String(data))
        ws.data.node.onopen = () => {
          for (const message of ws.data.queue) ws.data.node.send(message)
          ws.data.queue = []
        }
        ws.data.node.onclose = () => ws.close()
      },
      message(ws, message) {
        if (String(message).includes('eth_subscribe')) subscriptions++
        if (ws.data.node.readyState === WebSocket.OPEN) ws.data.node.send(String(message))
        else ws.data.queue.push(String(message))
      },
      close(ws) {
        open.delete(ws)
        ws.data.node.close()
      },
    },
  })
  const proxy = {
    url: `ws://127.0.0.1:${server.port}`,
    get subscriptions() {
      return subscriptions
    },
    cut() {
      cut = true
      for (const ws of open) ws.close()
    },
    heal() {
      cut = false
    },
    stop() {
      server.stop(true)
    },
  }
  proxies.push(proxy)
  return proxy
}

const env = (key: `0x${string}`, wsUrl?: string) => ({
  RELAYER_PK: key,
  RELAYER_RECEIPT_POLL_MS: '60000',
  RELAYER_RECEIPT_TIMEOUT_MS: '5000',
  ...(wsUrl ? { RELAYER_WS_URL: wsUrl } : {}),
})

test('with pushed heads an order settles at its block; without them, polls 60 s apart miss the timeout', async () => {
  const proxy = wsProxy()
  const pushed = await startTestRelayer(devnet, { env: env(devnetAccounts.relayer.privateKey, proxy.url) })
  relayers.push(pushed)
  const polled = await startTestRelayer(devnet, { env: env(devnetAccounts.secondRelayer.privateKey) })
  relayers.push(polled)
  await waitFor('the relayer subscribed to newHeads', () => proxy.subscriptions === 1, 5_000)
  expect(pushed.logger.lines).toContain(`new block heads: pushed over ${proxy.url} (RELAYER_WS_URL); polling every 60000 ms only as a safety net`)

  const [withFeed, withoutFeed] = await Promise.all([
    pushed.post(await signed(devnet, allocationOrder(devnet))),
    polled.post(await signed(devnet, allocationOrder(devnet))),
  ])
  expect(withFeed.status).toBe(200)
  expect(withoutFeed.status).toBe(502)
  expect(withoutFeed.body.code).toBe('UPSTREAM_RPC')
  expect(String(withoutFeed.body.message)).toContain('no receipt within 5000 ms')
  for (let i = 0; i < 3; i++) expect((await pushed.post(await signed(devnet, allocationOrder(devnet)))).status).toBe(200)
}, 60_000)

test('a feed cut off: one warning, orders still settle by polling, and it subscribes again once the node is back', async () => {
  const proxy = wsProxy()
  const relayer = await startTestRelayer(devnet, {
    env: { ...env(devnetAccounts.spare.privateKey, proxy.url), RELAYER_RECEIPT_POLL_MS: '400', RELAYER_RECEIPT_TIMEOUT_MS: '20000' },
  })
  relayers.push(relayer)
  await devnet.testClient.setBalance({ address: devnetAccounts.spare.address, value: 10n ** 20n })
  await waitFor('the relayer subscribed to newHeads', () => proxy.subscriptions === 1, 5_000)
  proxy.cut()
  await waitFor('the lost feed is reported', () => relayer.logger.lines.some((line) => line.startsWith('warn: new block heads:')), 5_000)
  expect((await relayer.post(await signed(devnet, allocationOrder(devnet)))).status).toBe(200)
  proxy.heal()
  await waitFor('the relayer subscribed again', () => proxy.subscriptions === 2, 10_000)
  await waitFor('the recovery is reported', () => relayer.logger.lines.includes(`new block heads: subscribed again at ${proxy.url} (RELAYER_WS_URL)`), 5_000)
  expect(relayer.logger.lines.filter((line) => line.startsWith('warn: new block heads:'))).toHaveLength(1)
  expect((await relayer.post(await signed(devnet, allocationOrder(devnet)))).status).toBe(200)
}, 60_000)

test('RELAYER_WS_URL must be ws:// or wss://', () => {
  const read = (value: string) => () =>
    readRelayerConfig({ RELAYER_PK: devnetAccounts.relayer.privateKey, RELAYER_CHAIN_ID: '421614', RELAYER_BROKER: devnetAccounts.spare.address, RELAYER_WS_URL: value })
  expect(read('http://127.0.0.1:8545')).toThrow('RELAYER_WS_URL must be a ws:// or wss:// URL of the same node as RELAYER_RPC_URL (for example ws://127.0.0.1:8545 for anvil), or off')
  expect(read('wss://user:secret@node.example/ws').call(null).wsUrl).toBe('wss://user:secret@node.example/ws')
})

test('a head whose number is not a hex quantity is ignored; the next good head still comes through', async () => {
  // A node that answers the subscription, then pushes a broken head and a good one.
  const node = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request, server) => (server.upgrade(request, { data: undefined }) ? undefined : new Response('no upgrade', { status: 400 })),
    websocket: {
      message(ws, message) {
        const { id, method } = JSON.parse(String(message))
        if (method !== 'eth_subscribe') return
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, result: '0xs1' }))
        for (const number of ['not-a-number', 7, '0x2a']) ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: '0xs1', result: { number } } }))
      },
    },
  })
  const heads: bigint[] = []
  const errors: unknown[] = []
  const onError = (error: unknown) => errors.push(error)
  process.on('uncaughtException', onError)
  const feed = createHeadFeed({ url: `ws://127.0.0.1:${node.port}`, logger: createMemoryLogger(), onHead: (number) => heads.push(number) })
  try {
    await waitFor('the good head arrived', () => heads.length > 0, 5_000)
    expect(heads).toEqual([42n])
    expect(errors).toEqual([])
  } finally {
    process.off('uncaughtException', onError)
    feed.stop()
    node.stop(true)
  }
})

test("the devnet manifest names anvil's WebSocket, and a relayer reading the manifest uses it while it uses the manifest's RPC", async () => {
  expect(devnet.manifest.wsUrl).toBe(devnet.rpcUrl.replace(/^http/, 'ws'))
  const dir = mkdtempSync(join(tmpdir(), 'order-relay-wsmanifest-'))
  try {
    const path = join(dir, 'manifest.json')
    writeFileSync(path, JSON.stringify(devnet.manifest))
    const read = (env: Record<string, string>) => readRelayerConfig({ RELAYER_PK: devnetAccounts.relayer.privateKey, RELAYER_MANIFEST: path, ...env })
    expect(read({}).wsUrl).toBe(devnet.manifest.wsUrl)
    // Another node's RPC: the manifest's WebSocket would watch the wrong node, so none.
    expect(read({ RELAYER_RPC_URL: 'http://127.0.0.1:9' }).wsUrl).toBeUndefined()
    expect(read({ RELAYER_WS_URL: 'ws://127.0.0.1:9' }).wsUrl).toBe('ws://127.0.0.1:9')
    // `off` turns the manifest's off (a node behind a proxy that drops WebSockets); empty is unset.
    expect(read({ RELAYER_WS_URL: 'off' }).wsUrl).toBeUndefined()
    expect(read({ RELAYER_WS_URL: 'OFF' }).wsUrl).toBeUndefined()
    expect(read({ RELAYER_WS_URL: '' }).wsUrl).toBe(devnet.manifest.wsUrl)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

/** A WebSocket node on loopback that counts its connections and answers each `eth_subscribe` (its request id) with `answer`. */
function wsNode(answer: (ws: { send(text: string): unknown }, id: unknown) => void = () => {}) {
  let connections = 0
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request, server) => (server.upgrade(request, { data: undefined }) ? undefined : new Response('no upgrade', { status: 400 })),
    websocket: {
      open() {
        connections++
      },
      message(ws, message) {
        const { id, method } = JSON.parse(String(message))
        if (method === 'eth_subscribe') answer(ws, id)
      },
    },
  })
  return { port: server.port, connections: () => connections, stop: () => server.stop(true) }
}

test('a node that takes the connection but never answers eth_subscribe: said once, and the feed connects again', async () => {
  const silent = wsNode()
  const logger = createMemoryLogger()
  const feed = createHeadFeed({ url: `ws://127.0.0.1:${silent.port}`, logger, onHead: () => {}, subscribeTimeoutMs: 200 })
  try {
    await waitFor('the feed connected a second time', () => silent.connections() >= 2, 5_000)
    expect(logger.lines).toEqual([
      `warn: new block heads: eth_subscribe newHeads got no answer within 200 ms at ws://127.0.0.1:${silent.port} (RELAYER_WS_URL); polling for blocks meanwhile, trying again`,
    ])
  } finally {
    feed.stop()
    silent.stop()
  }
})

test('a subscription that goes quiet while polling sees new blocks: said once, and subscribed again; a feed with nothing newer to push is left alone', async () => {
  // A node that answers each subscription with head 1, then pushes nothing more.
  const node = wsNode((ws, id) => {
    ws.send(JSON.stringify({ jsonrpc: '2.0', id, result: '0xs1' }))
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: '0xs1', result: { number: '0x1' } } }))
  })
  const logger = createMemoryLogger()
  const heads: bigint[] = []
  const feed = createHeadFeed({ url: `ws://127.0.0.1:${node.port}`, logger, onHead: (number) => heads.push(number), silentMs: 300 })
  try {
    await waitFor('the first head', () => heads.length === 1, 5_000)
    // Polling sees no newer block than the feed pushed, or just the next (a push racing the poll): nothing to say.
    feed.polledHead(1n)
    feed.polledHead(2n)
    expect(node.connections()).toBe(1)
    // Newer blocks, but the subscription is younger than the quiet allowed: left alone.
    feed.polledHead(5n)
    expect(node.connections()).toBe(1)
    await waitFor('the quiet allowed to pass', () => Date.now() - feed.lastHeadAt > 350, 5_000)
    feed.polledHead(2n)
    expect(node.connections()).toBe(1)
    feed.polledHead(6n)
    await waitFor('the feed subscribed again', () => node.connections() === 2 && heads.length === 2, 5_000)
    expect(logger.lines).toEqual([
      `warn: new block heads: the subscription pushed no head for 0 s while the node mined block 6 at ws://127.0.0.1:${node.port} (RELAYER_WS_URL); polling for blocks meanwhile, trying again`,
      `new block heads: subscribed again at ws://127.0.0.1:${node.port} (RELAYER_WS_URL)`,
    ])
  } finally {
    feed.stop()
    node.stop()
  }
})

test('an idle chain: a subscription that pushed nothing while polling sees the same head is left alone; a block mined and not pushed is said', async () => {
  // A node that answers the subscription and pushes no head: no block is mined.
  const node = wsNode((ws, id) => ws.send(JSON.stringify({ jsonrpc: '2.0', id, result: '0xs1' })))
  const logger = createMemoryLogger()
  const feed = createHeadFeed({ url: `ws://127.0.0.1:${node.port}`, logger, onHead: () => {}, silentMs: 300 })
  try {
    await waitFor('the subscription', () => node.connections() === 1, 5_000)
    const subscribedBy = Date.now()
    feed.polledHead(25n)
    await waitFor('the quiet allowed to pass', () => Date.now() - subscribedBy > 400, 5_000)
    // The head polling saw when the subscription began, again and again: nothing was mined, nothing to say.
    for (let i = 0; i < 3; i++) feed.polledHead(25n)
    feed.polledHead(26n)
    expect({ connections: node.connections(), lines: logger.lines }).toEqual({ connections: 1, lines: [] })
    // Two blocks past it and nothing pushed: the subscription went quiet.
    feed.polledHead(27n)
    await waitFor('the feed subscribed again', () => node.connections() === 2, 5_000)
    expect(logger.lines[0]).toMatch(/^warn: new block heads: the subscription pushed no head for \d+ s while the node mined block 27 at /)
  } finally {
    feed.stop()
    node.stop()
  }
})

test('a refused eth_subscribe: said once with the node\'s reason, and the feed connects again', async () => {
  const refusing = wsNode((ws, id) => ws.send(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'the method eth_subscribe does not exist' } })))
  const logger = createMemoryLogger()
  const feed = createHeadFeed({ url: `ws://127.0.0.1:${refusing.port}`, logger, onHead: () => {} })
  try {
    await waitFor('the feed connected a second time', () => refusing.connections() >= 2, 5_000)
    expect(logger.lines).toEqual([
      `warn: new block heads: eth_subscribe newHeads was refused (the method eth_subscribe does not exist) at ws://127.0.0.1:${refusing.port} (RELAYER_WS_URL); polling for blocks meanwhile, trying again`,
    ])
  } finally {
    feed.stop()
    refusing.stop()
  }
})

test('a node that drops every connection: one warning with the URL redacted, nothing written around the logger, and the feed keeps trying until the node is up', async () => {
  // A TCP server that closes each connection at once, counting them: the WebSocket never opens.
  let attempts = 0
  const dropping = createServer((socket) => {
    attempts++
    socket.destroy()
  })
  await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve))
  const port = (dropping.address() as AddressInfo).port
  const written: unknown[][] = []
  const consoleError = console.error
  console.error = (...args: unknown[]) => written.push(args)
  const logger = createMemoryLogger()
  const heads: bigint[] = []
  const url = `ws://127.0.0.1:${port}/v2/abcdefghijklmnopqrstuvwxyz0123`
  const feed = createHeadFeed({ url, logger, onHead: (number) => heads.push(number) })
  let node: ReturnType<typeof Bun.serve> | undefined
  try {
    // The first attempt and two more after 0.5 s and 1 s.
    await waitFor('three attempts', () => attempts >= 3, 10_000)
    await new Promise<void>((resolve) => dropping.close(() => resolve()))
    node = Bun.serve({
      hostname: '127.0.0.1',
      port,
      fetch: (request, server) => (server.upgrade(request, { data: undefined }) ? undefined : new Response('no upgrade', { status: 400 })),
      websocket: {
        message(ws, message) {
          const { id } = JSON.parse(String(message))
          ws.send(JSON.stringify({ jsonrpc: '2.0', id, result: '0xs1' }))
          ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: '0xs1', result: { number: '0x7' } } }))
        },
      },
    })
    await waitFor('a head from the node once it is up', () => heads.length > 0, 10_000)
    expect(logger.lines).toEqual([
      `warn: new block heads: cannot connect at ws://127.0.0.1:${port}/v2/*** (RELAYER_WS_URL); polling for blocks meanwhile, trying again`,
      `new block heads: subscribed again at ws://127.0.0.1:${port}/v2/*** (RELAYER_WS_URL)`,
    ])
    // viem's own reconnect (off here) writes each failed attempt to console.error, the URL's key included.
    expect(written).toEqual([])
  } finally {
    console.error = consoleError
    feed.stop()
    dropping.close()
    node?.stop(true)
  }
})
