import { type Devnet, devnetAccounts } from '../../../src/devnet/index.ts'
import type { RelayerConfig } from '../../../src/relayer/index.ts'
import { startTestRelayer } from '../../helpers/relayer.ts'
import type { Exposure } from './exposure.ts'

/** An access log line: `METHOD PATH STATUS CODE`, nothing else. */
export const accessLinePattern = /^(GET|POST|PUT|PATCH|DELETE|OPTIONS|HEAD) \/\S* \d{3} [A-Z_-]+$/
const looksLikeAccess = /^[A-Z]+ \//

export type WatchedRelayer = Awaited<ReturnType<typeof startWatchedRelayer>>

/**
 * `startTestRelayer` whose key, log lines, request signatures and response bodies
 * are all handed to `exposure`, and which remembers the access-log line each request
 * should have produced.
 */
export async function startWatchedRelayer(
  devnet: Devnet,
  exposure: Exposure,
  options: { env?: Record<string, string>; overrides?: Partial<RelayerConfig> } = {},
) {
  const relayer = await startTestRelayer(devnet, options)
  // The config holds no key once the relayer is built: watch the one it was given.
  exposure.key((options.overrides?.privateKey ?? options.env?.RELAYER_PK ?? devnetAccounts.relayer.privateKey) as `0x${string}`)
  exposure.logger(relayer.logger.lines)
  const expected: string[] = []

  return {
    ...relayer,
    /** POST /broker, recorded. */
    async post(body: unknown, init: { raw?: string; headers?: Record<string, string> } = {}) {
      const signature = (body as { signature?: { r?: unknown; s?: unknown } } | undefined)?.signature
      if (typeof signature?.r === 'string' && typeof signature.s === 'string') exposure.request({ signature: signature as never })
      const answer = await relayer.post(body, init)
      exposure.body(answer.text)
      const code = answer.body?.ok === true ? 'OK' : String(answer.body?.code ?? (answer.status === 404 ? 'NOT_FOUND' : '?'))
      expected.push(`POST /broker ${answer.status} ${code}`)
      return answer
    },
    /** Any request to the relayer, recorded; `code` is what its access line should end with. */
    async request(method: string, path: string, init: RequestInit = {}) {
      const response = await fetch(`${relayer.url}${path}`, { ...init, method })
      const text = await response.text()
      exposure.body(text)
      let json: Record<string, unknown> | undefined
      try {
        json = JSON.parse(text)
      } catch {}
      // The route layer's own answers (404, 405) carry their code; an answered OPTIONS (204) none.
      const routeCode = response.status === 404 || response.status === 405 ? String(json?.code) : undefined
      const code = routeCode ?? (response.status === 204 ? '-' : path === '/ready' && response.status === 503 ? 'NOT_READY' : path.startsWith('/broker') ? String(json?.ok === true || (response.status === 200 && path.startsWith('/broker/')) ? 'OK' : json?.code) : '-')
      expected.push(`${method} ${path.split('?')[0]} ${response.status} ${code}`)
      return { status: response.status, text, json, headers: response.headers }
    },
    /** Tell the watcher about a request made some other way (e.g. through the client library). */
    expect(line: string) {
      expected.push(line)
    },
    /** The access lines the log holds, the ones expected, and every other line. */
    accessLog() {
      const lines = relayer.logger.lines
      return {
        access: lines.filter((line) => looksLikeAccess.test(line)).sort(),
        expected: [...expected].sort(),
        other: lines.filter((line) => !looksLikeAccess.test(line)),
      }
    },
  }
}
