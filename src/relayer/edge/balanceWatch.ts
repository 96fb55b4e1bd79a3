import { errorLine, type Logger } from '../../shared/index.ts'

export type BalanceWatchOptions = {
  /** Reads the relayer key's native balance in wei. */
  readBalance: () => Promise<bigint>
  /** Below this balance the breaker opens. */
  floorWei: bigint
  /** Pause between the end of one poll and the start of the next. */
  pollMs: number
  logger: Logger
}

export type BalanceState = 'unknown' | 'ok' | 'low'

/**
 * Polls the relayer key's balance in the background and remembers whether it is
 * below the floor. Until the first answer the state is `unknown` (not paused: the
 * pipeline itself answers `INSUFFICIENT_RELAYER_GAS` if a broadcast cannot pay). A
 * failed poll keeps the last state and is logged once per run of failures. Each
 * change of state is logged.
 *
 * @example
 * const watch = createBalanceWatch({ readBalance: () => client.getBalance({ address }), floorWei, pollMs: 5_000, logger })
 * await watch.start()
 * watch.paused() // true while below the floor
 */
export function createBalanceWatch(options: BalanceWatchOptions) {
  const { readBalance, floorWei, pollMs, logger } = options
  let state: BalanceState = 'unknown'
  let failing = false
  let running = false
  let timer: ReturnType<typeof setTimeout> | undefined

  async function poll() {
    let balance: bigint
    try {
      balance = await readBalance()
    } catch (error) {
      if (!failing) logger.warn(`gas breaker: balance poll failed (${errorLine(error)}); keeping the last state (${state}) and retrying every ${pollMs} ms`)
      failing = true
      return
    }
    if (failing) logger.info('gas breaker: balance poll recovered')
    failing = false
    const next: BalanceState = balance < floorWei ? 'low' : 'ok'
    if (next === 'low' && state !== 'low') {
      logger.warn(`gas breaker: relayer balance ${balance} wei is below the floor ${floorWei} wei; POST /broker paused until it is topped up`)
    } else if (next === 'ok' && state === 'low') {
      logger.info(`gas breaker: relayer balance ${balance} wei is back at or above the floor ${floorWei} wei; POST /broker resumed`)
    }
    state = next
  }

  function schedule() {
    if (!running) return
    timer = setTimeout(async () => {
      await poll()
      schedule()
    }, pollMs)
    timer.unref?.()
  }

  return {
    paused: () => state === 'low',
    state: () => state,
    /** Polls once now (resolves when that poll is done), then every `pollMs` until `stop`. */
    async start() {
      if (running) return
      running = true
      await poll()
      schedule()
    },
    stop() {
      running = false
      if (timer) clearTimeout(timer)
      timer = undefined
    },
  }
}

export type BalanceWatch = ReturnType<typeof createBalanceWatch>
