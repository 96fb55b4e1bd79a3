import type { Logger } from '../../shared/index.ts'
import { loggablePath } from '../accessLog.ts'
import type { RequestDrain } from './requestDrain.ts'

/** The metrics' side of a request: in flight from `begin`, counted (and a settlement timed) at `answered`. */
export type RequestMetrics = {
  begin(): number
  answered(method: string, path: string, status: number, code: string, began: number): void
}

export type RequestObserver = ReturnType<typeof createRequestObserver>

/**
 * What happens around every request, hono's routes and `POST /broker` alike: it joins
 * the SIGTERM drain as soon as its headers arrived (body still to come) and counts as
 * in flight; once answered it leaves the drain, is counted, and gets its access line.
 *
 * @example
 * const observer = createRequestObserver({ logger, drain, metrics })
 * const began = observer.begin()
 * observer.end(began, 'POST', '/broker', 400, 'MALFORMED_ORDER')
 */
export function createRequestObserver(options: { logger: Logger; drain?: Pick<RequestDrain, 'enter' | 'leave' | 'closing'>; metrics?: RequestMetrics }) {
  const { logger, drain, metrics } = options
  return {
    /** Whether answers must close their connection (the relayer is stopping: `Connection: close`). */
    get closing() {
      return drain?.closing ?? false
    },
    /** The request arrived; the value is `end`'s `began`. */
    begin(): number {
      const began = metrics?.begin() ?? 0
      drain?.enter()
      return began
    },
    /**
     * Work that goes on after its request was answered (an order answered 202 is still
     * settling): the SIGTERM drain waits for it too. Call the returned function when it ends.
     */
    hold(): () => void {
      drain?.enter()
      return () => drain?.leave()
    },
    /** The request is answered: `path` as it came (the access line escapes it). */
    end(began: number, method: string, path: string, status: number, code: string) {
      drain?.leave()
      metrics?.answered(method, path, status, code, began)
      const logged = path === '/broker' ? path : loggablePath(path)
      logger.info(`${method} ${logged} ${status} ${code}`, { method, path: logged, status, code })
    },
  }
}
