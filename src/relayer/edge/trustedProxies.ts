/**
 * Which `X-Forwarded-For` hops the relayer believes (RELAYER_TRUSTED_PROXIES): either
 * how many proxies stand in front of it (each appends the address it was reached
 * from), or the networks those proxies live in.
 */
export type TrustedProxies = { kind: 'hops'; hops: number } | { kind: 'cidrs'; cidrs: Cidr[] }

/** A network: `bits` leading bits of `base` (an IPv4 address as 32 bits, IPv6 as 128). */
export type Cidr = { family: 4 | 6; base: bigint; bits: number; text: string }

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
  if (!parsed || parsed.family !== cidr.family) return false
  const width = cidr.family === 4 ? 32 : 128
  const shift = BigInt(width - cidr.bits)
  return parsed.value >> shift === cidr.base >> shift
}

function parseCidr(entry: string): Cidr | undefined {
  const [address, bitsText, extra] = entry.split('/')
  if (extra !== undefined || !address) return undefined
  const parsed = parseAddress(address)
  if (!parsed) return undefined
  const width = parsed.family === 4 ? 32 : 128
  const bits = bitsText === undefined ? width : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : Number.NaN
  if (!(bits >= 0 && bits <= width)) return undefined
  return { family: parsed.family, base: parsed.value, bits, text: `${address}/${bits}` }
}

/** An address as a number: IPv4-mapped IPv6 counts as IPv4; a `:port` or `[...]` is dropped. */
export function parseAddress(raw: string): { family: 4 | 6; value: bigint } | undefined {
  let text = raw.trim().toLowerCase()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text)
  if (bracketed?.[1]) text = bracketed[1]
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(text)
  if (withPort?.[1]) text = withPort[1]
  text = text.split('%')[0] ?? text
  const v4 = ipv4Value(text)
  if (v4 !== undefined) return { family: 4, value: v4 }
  const mapped = /^(?:::|(?:0{1,4}:){5})ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text)
  if (mapped?.[1]) {
    const value = ipv4Value(mapped[1])
    return value === undefined ? undefined : { family: 4, value }
  }
  const v6 = ipv6Value(text)
  return v6 === undefined ? undefined : { family: 6, value: v6 }
}

function ipv4Value(text: string): bigint | undefined {
  const parts = text.split('.')
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined
  return parts.reduce((sum, p) => (sum << 8n) | BigInt(p), 0n)
}

function ipv6Value(text: string): bigint | undefined {
  if (!text.includes(':')) return undefined
  const halves = text.split('::')
  if (halves.length > 2) return undefined
  const groupsOf = (part: string | undefined): string[] | undefined => {
    if (!part) return []
    const groups: string[] = []
    for (const g of part.split(':')) {
      const v4 = ipv4Value(g)
      if (v4 !== undefined) groups.push((v4 >> 16n).toString(16), (v4 & 0xffffn).toString(16))
      else if (/^[0-9a-f]{1,4}$/.test(g)) groups.push(g)
      else return undefined
    }
    return groups
  }
  const head = groupsOf(halves[0])
  const tail = groupsOf(halves[1])
  if (!head || !tail) return undefined
  const missing = 8 - head.length - tail.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail]
  return groups.reduce((sum, g) => (sum << 16n) | BigInt(Number.parseInt(g, 16)), 0n)
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
