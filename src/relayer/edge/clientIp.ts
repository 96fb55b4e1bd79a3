import { oneHop, parseAddress, pickClient, type TrustedProxies } from './trustedProxies.ts'

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

/**
 * One key per client: IPv4 as is (a `:port` suffix dropped), an IPv4-mapped IPv6
 * address as its IPv4, any other IPv6 address as its /64 network (`2001:db8:0:1::/64`),
 * since one IPv6 host commonly owns a whole /64. Addresses are read by `node:net`
 * (parseAddress); anything else is kept verbatim, lower-cased and cut at 64 characters.
 */
export function normalizeIp(raw: string): string {
  const parsed = parseAddress(raw)
  if (!parsed) return raw.trim().toLowerCase().slice(0, 64)
  if (parsed.family === 4) return parsed.address
  const groups = ipv6Groups(parsed.address)
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.')
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`
}

/** The eight 16-bit groups of an IPv6 address `node:net` accepted: `::` widened, a trailing dotted IPv4 as two groups. */
function ipv6Groups(address: string): number[] {
  const words = (part: string) =>
    part
      .split(':')
      .filter(Boolean)
      .flatMap((word) => {
        if (!word.includes('.')) return [Number.parseInt(word, 16)]
        const [a = 0, b = 0, c = 0, d = 0] = word.split('.').map(Number)
        return [(a << 8) | b, (c << 8) | d]
      })
  const [head = '', tail] = address.split('::')
  const left = words(head)
  const right = tail === undefined ? [] : words(tail)
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right]
}
