import { oneHop, pickClient, type TrustedProxies } from './trustedProxies.ts'

export type ClientIpOptions = {
  /** Believe `X-Forwarded-For` as far as `trustedProxies` says (only behind a proxy that appends to it). */
  trustProxy: boolean
  /** Which hops are the operator's own proxies (default: one hop). */
  trustedProxies?: TrustedProxies
}

/** What tells a request's socket address: `Bun.serve`'s server (a route's second argument, hono's `c.env`). */
export type SocketReader = { requestIP(request: Request): { address: string } | null }

/**
 * The key a client is rate-limited by: the socket's address, or with `trustProxy`
 * the rightmost `X-Forwarded-For` address not added by a trusted proxy (entries a
 * client writes itself sit to the left of what its proxies append, so the first entry
 * is never believed). Addresses are normalized by `normalizeIp`; `unknown` when
 * neither is available (e.g. `app.request` in a test, which has no server).
 *
 * @example
 * const key = clientIp(request, server, { trustProxy: false }) // '127.0.0.1'
 */
export function clientIp(request: Request, server: SocketReader | undefined, options: ClientIpOptions): string {
  const socket = typeof server?.requestIP === 'function' ? (server.requestIP(request)?.address ?? undefined) : undefined
  if (options.trustProxy) {
    const forwarded = (request.headers.get('x-forwarded-for') ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean)
    const client = pickClient(forwarded, socket, options.trustedProxies ?? oneHop)
    if (client) return normalizeIp(client)
  }
  return socket ? normalizeIp(socket) : 'unknown'
}

const ipv4 = /^\d{1,3}(\.\d{1,3}){3}$/

/**
 * One key per client: IPv4 as is (a `:port` suffix dropped), an IPv4-mapped IPv6
 * address as its IPv4, any other IPv6 address as its /64 network (`2001:db8:0:1::/64`),
 * since one IPv6 host commonly owns a whole /64. Anything else is kept verbatim,
 * lower-cased and cut at 64 characters.
 */
export function normalizeIp(raw: string): string {
  let value = raw.trim().toLowerCase()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value)
  if (bracketed?.[1]) value = bracketed[1]
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(value)
  if (withPort?.[1]) value = withPort[1]
  if (ipv4.test(value)) return value
  const mapped = /^(?:::|(?:0{1,4}:){5})ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(value)
  if (mapped?.[1]) return mapped[1]
  if (value.includes(':')) {
    const prefix = ipv6Prefix64(value.split('%')[0] ?? value)
    if (prefix) return prefix
  }
  return value.slice(0, 64)
}

/** The /64 network of an IPv6 address, or undefined when it is not one. */
function ipv6Prefix64(address: string): string | undefined {
  const halves = address.split('::')
  if (halves.length > 2) return undefined
  const groupsOf = (part: string | undefined) => (part ? part.split(':') : [])
  const widen = (groups: string[]) => groups.flatMap((g) => (ipv4.test(g) ? ['0', '0'] : [g]))
  const head = widen(groupsOf(halves[0]))
  const tail = widen(groupsOf(halves[1]))
  let groups: string[]
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length
    if (missing < 1) return undefined
    groups = [...head, ...Array<string>(missing).fill('0'), ...tail]
  } else {
    groups = head
  }
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`
}
