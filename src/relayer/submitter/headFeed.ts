import { createClient, webSocket } from 'viem'
import type { Logger } from '../../shared/index.ts'
import { redactUrl } from '../../shared/index.ts'

/** Longest pause between reconnection attempts. */
const maxBackoffMs = 30_000

export type HeadFeed = {
  /** When the last new head arrived (ms since epoch), 0 before the first. */
  readonly lastHeadAt: number
  /**
   * The head as the relayer's own polling read it. A subscription that pushed nothing
   * for `silentMs` while the chain moved past its last head has gone quiet without
   * closing (some providers drop it on a failover): it is said once and subscribed again.
   */
  polledHead(blockNumber: bigint): void
  stop(): void
}

/** One attempt at the feed: closes its viem WebSocket client once there is one. */
type Connection = { close(): void }

/**
 * New block heads pushed by the node over a WebSocket (`eth_subscribe` `newHeads`,
 * RELAYER_WS_URL), so the receipt watcher looks the moment a block is mined instead
 * of at its next poll. The connection, its keep-alive pings and the subscription are
 * viem's (`webSocket` transport, `transport.subscribe`). What viem lacks is here:
 * - reconnecting forever, backing off to 30 s, and subscribing again each time. viem's
 *   own `reconnect` gives up after a number of attempts and writes each failed one to
 *   `console.error` with the whole URL (an API key in its path included), so it is off;
 * - a time limit on the answer to `eth_subscribe`;
 * - the silent-subscription check (`polledHead`);
 * - one warning when the feed goes down and one line when it is back, the URL never
 *   shown with its credentials;
 * - ignoring a head whose number is not a hex quantity (viem's `watchBlockNumber`
 *   throws on it inside the socket's message handler, which drops the subscription).
 * Polling goes on meanwhile, so a feed that is down only costs latency.
 *
 * @example
 * const feed = createHeadFeed({ url: 'wss://arb-sepolia.example/ws', logger, onHead: () => watcher.kick() })
 * feed.stop()
 */
export function createHeadFeed(options: {
  url: string
  logger: Logger
  onHead: (blockNumber: bigint) => void
  /** How long the node may take to take the connection and answer `eth_subscribe` before it is given up (default 10 s). */
  subscribeTimeoutMs?: number
  /** How long a subscription may push nothing while polling sees new blocks before it is renewed (default 30 s). */
  silentMs?: number
}): HeadFeed {
  const { url, logger } = options
  const subscribeTimeoutMs = options.subscribeTimeoutMs ?? 10_000
  const silentMs = options.silentMs ?? 30_000
  const shown = redactUrl(url)
  let connection: Connection | undefined
  let subscribed = false
  let stopped = false
  let backoffMs = 500
  let retry: ReturnType<typeof setTimeout> | undefined
  let lastHeadAt = 0
  let subscribedAt = 0
  let lastPushed: bigint | undefined
  /** The first head polling saw after subscribing: the mark for a feed that has pushed nothing yet. */
  let polledSinceSubscribed: bigint | undefined
  let down = false

  function connect() {
    if (stopped) return
    subscribed = false
    // Callbacks of an attempt given up on (one that is not `connection`) are ignored.
    const current: Connection = { close: () => {} }
    connection = current
    const live = () => connection === current && !stopped
    const { transport } = createClient({ transport: webSocket(url, { reconnect: false, retryCount: 0 }) })
    let opened = false
    // A node that takes the connection but never answers the subscription pushes nothing: say so and try again.
    const unanswered = setTimeout(() => {
      if (live() && !subscribed) lost(opened ? `eth_subscribe newHeads got no answer within ${subscribeTimeoutMs} ms` : `cannot connect within ${subscribeTimeoutMs} ms`)
    }, subscribeTimeoutMs)
    void transport
      .getRpcClient()
      .then(async (client) => {
        opened = true
        // Closing also takes the client out of viem's socket cache, so the next attempt opens a new socket.
        current.close = () => client.close()
        if (!live()) return current.close()
        await transport.subscribe({
          params: ['newHeads'],
          onData(data: { result?: { number?: unknown } }) {
            const number = data.result?.number
            // A head whose number is not a hex quantity is ignored (BigInt would throw on it).
            if (!live() || typeof number !== 'string' || !/^0x[0-9a-f]+$/i.test(number)) return
            lastHeadAt = Date.now()
            lastPushed = BigInt(number)
            options.onHead(lastPushed)
          },
          onError() {
            if (live() && subscribed) lost('the connection closed')
          },
        })
        clearTimeout(unanswered)
        if (!live()) return
        subscribed = true
        subscribedAt = Date.now()
        polledSinceSubscribed = undefined
        backoffMs = 500
        if (down) logger.info(`new block heads: subscribed again at ${shown} (RELAYER_WS_URL)`)
        down = false
      })
      .catch((error: unknown) => {
        clearTimeout(unanswered)
        if (!live()) return
        if (!opened) return lost('cannot connect')
        // The node's JSON-RPC error (a plain object), or the socket closing (an Error) before it answered.
        const refusal = error instanceof Error ? undefined : (error as { message?: unknown } | undefined)?.message
        lost(typeof refusal === 'string' ? `eth_subscribe newHeads was refused (${refusal.slice(0, 200)})` : 'the connection closed')
      })
  }

  /** Gives the attempt up (closing its connection), says so once while down, and tries again after a pause. */
  function lost(why: string) {
    if (stopped || retry) return
    const given = connection
    connection = undefined
    subscribed = false
    given?.close()
    if (!down) logger.warn(`new block heads: ${why} at ${shown} (RELAYER_WS_URL); polling for blocks meanwhile, trying again`)
    down = true
    retry = setTimeout(() => {
      retry = undefined
      connect()
    }, backoffMs)
    backoffMs = Math.min(backoffMs * 2, maxBackoffMs)
  }

  connect()
  return {
    get lastHeadAt() {
      return lastHeadAt
    },
    polledHead(blockNumber) {
      if (stopped || !subscribed) return
      // An idle chain mines nothing to push: a feed that pushed nothing yet is measured
      // against the head polling saw when it began, not against no head at all.
      polledSinceSubscribed ??= blockNumber
      const mark = lastPushed ?? polledSinceSubscribed
      // Two blocks at least past the mark: a push racing the poll is not silence.
      if (blockNumber <= mark + 1n) return
      const quietMs = Date.now() - Math.max(lastHeadAt, subscribedAt)
      if (quietMs < silentMs) return
      lost(`the subscription pushed no head for ${Math.round(quietMs / 1000)} s while the node mined block ${blockNumber}`)
    },
    stop() {
      stopped = true
      clearTimeout(retry)
      connection?.close()
      connection = undefined
    },
  }
}
