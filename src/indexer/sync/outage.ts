import type { Logger } from '../../shared/index.ts'

/**
 * Logs a failure once per outage, not once per retry: the first failure of a kind
 * warns, repeats stay quiet, and the first success after it says so.
 *
 * @example
 * const outages = createOutageLog(logger)
 * outages.failed('head', 'cannot read the chain head')   // logged
 * outages.failed('head', 'cannot read the chain head')   // quiet
 * outages.recovered('head', 'node reachable again')      // logged
 */
export function createOutageLog(logger: Logger) {
  const failing = new Set<string>()
  return {
    failed(kind: string, message: string) {
      if (failing.has(kind)) return
      failing.add(kind)
      logger.warn(`indexer: ${message}`)
    },
    recovered(kind: string, message: string) {
      if (failing.delete(kind)) logger.info(`indexer: ${message}`)
    },
  }
}
