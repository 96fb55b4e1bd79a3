import type { Logger } from './logger.ts'

/**
 * Runs `refresh` every `everyMs` in the background (never keeping the process alive).
 * A failing refresh keeps the caller's last value; it is logged once when the
 * failures start and once when they end, not on every tick of an outage.
 *
 * @example
 * const ticker = backgroundRefresh(() => readHead(), { everyMs: 2_000, logger, what: 'chain head read' })
 * ticker.start()
 */
export function backgroundRefresh(refresh: () => Promise<unknown>, options: { everyMs: number; logger: Logger; what: string }) {
  let timer: ReturnType<typeof setInterval> | undefined
  let failing = false
  const tick = () =>
    refresh().then(
      () => {
        if (failing) options.logger.info(`${options.what} works again`)
        failing = false
      },
      () => {
        if (!failing) options.logger.warn(`${options.what} failed; keeping the last value and retrying every ${options.everyMs} ms`)
        failing = true
      },
    )
  return {
    start() {
      if (timer) return
      timer = setInterval(tick, options.everyMs)
      timer.unref?.()
    },
    stop() {
      if (timer) clearInterval(timer)
      timer = undefined
    },
  }
}
