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

/**
 * New block heads pushed by the node over a WebSocket (`eth_subscribe` `newHeads`,
 * RELAYER_WS_URL), so the receipt watcher looks the moment a block is mined instead
 * of at its next poll. Reconnects by itself, forever, backing off to 30 s, and
 * subscribes again each time; polling goes on meanwhile, so a feed that is down only
 * costs latency. The URL is never printed with its credentials.
 *
 * @example
 * const feed = createHeadFeed({ url: 'wss://arb-sepolia.example/ws', logger, onHead: () => watcher.kick() })
 * feed.stop()
 */
export function createHeadFeed(options: {
  url: string
  logger: Logger
  onHead: (blockNumber: bigint) => void
  /** How long the node may take to answer `eth_subscribe` before the connection is given up (default 10 s). */
  subscribeTimeoutMs?: number
  /** How long a subscription may push nothing while polling sees new blocks before it is renewed (default 30 s). */
  silentMs?: number
}): HeadFeed {
  const { url, logger } = options
  const subscribeTimeoutMs = options.subscribeTimeoutMs ?? 10_000
  const silentMs = options.silentMs ?? 30_000
  const shown = redactUrl(url)
  let socket: WebSocket | undefined
  let stopped = false
  let backoffMs = 500
  let retry: ReturnType<typeof setTimeout> | undefined
  let lastHeadAt = 0
  let subscription: string | undefined
  let subscribedAt = 0
  let lastPushed: bigint | undefined
  let down = false

  function connect() {
    if (stopped) return
    subscription = undefined
    let opened = false
    let unanswered: ReturnType<typeof setTimeout> | undefined
    let current: WebSocket
    try {
      current = new WebSocket(url)
    } catch (error) {
      return lost(`cannot open it (${(error as Error).message})`)
    }
    socket = current
    current.onopen = () => {
      opened = true
      current.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }))
      // A node that takes the connection but never answers the subscription pushes nothing: say so and try again.
      unanswered = setTimeout(() => {
        if (subscription !== undefined || socket !== current) return
        drop(current, `eth_subscribe newHeads got no answer within ${subscribeTimeoutMs} ms`)
      }, subscribeTimeoutMs)
    }
    current.onmessage = ({ data }) => {
      let message: { id?: unknown; result?: unknown; error?: { message?: unknown }; params?: { subscription?: unknown; result?: { number?: unknown } } }
      try {
        message = JSON.parse(String(data))
      } catch {
        return
      }
      if (message.id === 1) {
        clearTimeout(unanswered)
        if (typeof message.result === 'string') {
          subscription = message.result
          subscribedAt = Date.now()
          backoffMs = 500
          if (down) logger.info(`new block heads: subscribed again at ${shown} (RELAYER_WS_URL)`)
          down = false
        } else {
          drop(current, `eth_subscribe newHeads was refused (${String(message.error?.message ?? 'no reason given').slice(0, 200)})`)
        }
        return
      }
      const head = message.params
      // A head whose number is not a hex quantity is ignored (BigInt would throw in the socket's handler).
      if (!head || head.subscription !== subscription || typeof head.result?.number !== 'string' || !/^0x[0-9a-f]+$/i.test(head.result.number)) return
      lastHeadAt = Date.now()
      lastPushed = BigInt(head.result.number)
      options.onHead(lastPushed)
    }
    current.onclose = () => {
      clearTimeout(unanswered)
      if (!stopped) lost(opened ? 'the connection closed' : 'cannot connect')
    }
    current.onerror = () => {}
  }

  /** Closes a connection the feed gives up on (its close is not reported again) and tries anew. */
  function drop(connection: WebSocket, why: string) {
    connection.onclose = null
    connection.close()
    lost(why)
  }

  function lost(why: string) {
    if (stopped || retry) return
    if (!down) logger.warn(`new block heads: ${why} at ${shown} (RELAYER_WS_URL); polling for blocks meanwhile, trying again`)
    down = true
    socket = undefined
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
      const current = socket
      if (stopped || subscription === undefined || !current) return
      // Two blocks at least past the last pushed head: a push racing the poll is not silence.
      if (lastPushed !== undefined && blockNumber <= lastPushed + 1n) return
      const quietMs = Date.now() - Math.max(lastHeadAt, subscribedAt)
      if (quietMs < silentMs) return
      drop(current, `the subscription pushed no head for ${Math.round(quietMs / 1000)} s while the node mined block ${blockNumber}`)
    },
    stop() {
      stopped = true
      clearTimeout(retry)
      socket?.close()
      socket = undefined
    },
  }
}
