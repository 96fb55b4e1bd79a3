import { BlockList, isIP } from 'node:net'

/**
 * Which `X-Forwarded-For` hops the relayer believes (RELAYER_TRUSTED_PROXIES): either
 * how many proxies stand in front of it (each appends the address it was reached
 * from), or the networks those proxies live in.
 */
export type TrustedProxies = { kind: 'hops'; hops: number } | { kind: 'cidrs'; cidrs: Cidr[] }

/** A network as written (`10.0.0.0/8`, a single address as `/32` or `/128`) and as `node:net` checks it. */
export type Cidr = { text: string; list: BlockList }

/** RELAYER_TRUST_PROXY=1 alone: one proxy in front (nginx, a cloud load balancer). */
export const oneHop: TrustedProxies = { kind: 'hops', hops: 1 }

/**
 * Parses RELAYER_TRUSTED_PROXIES: a whole number of hops (`1`, `2`), or a comma list
 * of CIDRs or single addresses (`10.0.0.0/8, 2001:db8::/32, 192.0.2.7`).
 * @returns the setting, or a message saying what is wrong
 */
export function parseTrustedProxies(raw: string): TrustedProxies | string {
  const text = raw.trim()
  if (/^\d+$/.test(text)) {
    const hops = Number(text)
    if (hops < 1 || hops > 32) return 'RELAYER_TRUSTED_PROXIES as a hop count must be from 1 to 32'
    return { kind: 'hops', hops }
  }
  const cidrs: Cidr[] = []
  for (const entry of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const cidr = parseCidr(entry)
    if (!cidr) return `RELAYER_TRUSTED_PROXIES entries must be CIDRs like 10.0.0.0/8 or 2001:db8::/32, or the whole value a hop count (got ${JSON.stringify(entry.slice(0, 60))})`
    cidrs.push(cidr)
  }
  if (cidrs.length === 0) return 'RELAYER_TRUSTED_PROXIES must be a hop count or a comma list of CIDRs'
  return { kind: 'cidrs', cidrs }
}

/**
 * The client's address from the proxies' chain: `forwarded` is the `X-Forwarded-For`
 * list, left to right; `socket` the peer that connected (the nearest proxy), if known.
 * - hops N: the Nth entry from the right of `X-Forwarded-For` (entries left of it were
 *   written by the client and are not believed); the leftmost when there are fewer.
 * - CIDRs: walking from the socket leftwards, the first address not inside a trusted
 *   network; when every hop is trusted, the leftmost. A socket outside the trusted
 *   networks is itself the client (its header is not believed).
 */
export function pickClient(forwarded: string[], socket: string | undefined, trusted: TrustedProxies): string | undefined {
  if (trusted.kind === 'hops') {
    if (forwarded.length === 0) return socket
    return forwarded[Math.max(0, forwarded.length - trusted.hops)]
  }
  const chain = socket === undefined ? forwarded : [...forwarded, socket]
  for (let i = chain.length - 1; i >= 0; i--) {
    const address = chain[i]!
    if (!trusted.cidrs.some((cidr) => contains(cidr, address))) return address
  }
  return chain[0]
}

/** Whether `address` (any spelling: IPv4, IPv6, IPv4-mapped, with a port) is inside `cidr`. */
export function contains(cidr: Cidr, address: string): boolean {
  const parsed = parseAddress(address)
  return parsed !== undefined && cidr.list.check(parsed.address, parsed.family === 4 ? 'ipv4' : 'ipv6')
}

function parseCidr(entry: string): Cidr | undefined {
  const [address, bitsText, extra] = entry.split('/')
  if (extra !== undefined || !address) return undefined
  const family = isIP(address)
  if (family !== 4 && family !== 6) return undefined
  const width = family === 4 ? 32 : 128
  const bits = bitsText === undefined ? width : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : Number.NaN
  if (!(bits >= 0 && bits <= width)) return undefined
  const list = new BlockList()
  list.addSubnet(address, bits, family === 4 ? 'ipv4' : 'ipv6')
  return { text: `${address}/${bits}`, list }
}

/**
 * An address in any spelling a socket or a proxy gives it: bare, `[…]` or `[…]:port`
 * for IPv6, `a.b.c.d:port` for IPv4; lower-cased, without an IPv6 zone (`%eth0`), and
 * only what `node:net`'s `isIP` accepts (so no `10.2.3` or `010.2.3.4`, which URL
 * parsing, and so `SocketAddress.parse`, would read as other addresses). Undefined
 * for anything else.
 */
export function parseAddress(raw: string): { family: 4 | 6; address: string } | undefined {
  const text = raw.trim().toLowerCase().replace(/%[^\]]*/, '')
  let host = text
  if (text.startsWith('[')) host = text.slice(1, text.indexOf(']'))
  else if (text.indexOf(':') > 0 && text.indexOf(':') === text.lastIndexOf(':')) host = text.slice(0, text.indexOf(':'))
  const family = isIP(host)
  return family === 4 || family === 6 ? { family, address: host } : undefined
}

/** For the start-up line. */
export function describeTrustedProxies(trusted: TrustedProxies): string {
  if (trusted.kind === 'hops') {
    return trusted.hops === 1
      ? 'the rightmost X-Forwarded-For entry (one trusted proxy in front)'
      : `the X-Forwarded-For entry ${trusted.hops} from the right (${trusted.hops} trusted proxies in front)`
  }
  return `the rightmost X-Forwarded-For address outside the trusted proxies ${trusted.cidrs.map((c) => c.text).join(', ')}`
}
