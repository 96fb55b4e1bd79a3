import { type Address, getAddress } from 'viem'
import { addressPattern } from '../../wire/index.ts'

/**
 * Where a pay token's value in the chain's native currency comes from:
 * - `rate`: a fixed number of native units per whole token (`0.0004`), written as the
 *   fraction `numerator / denominator`;
 * - `feed`: Chainlink `AggregatorV3Interface` answers, native per whole token =
 *   answer(`over`) / answer(`under`), each scaled by its feed's `decimals()`; a missing side
 *   counts as 1. `feed:A` is a feed that prices the token in native units (a USDC / ETH
 *   feed); `feed:A/B` divides a feed of the token in some currency by a feed of the
 *   native coin in the same currency (USDC / USD ÷ ETH / USD); `feed:1/B` takes the token
 *   to be worth one unit of B's currency (a USD stablecoin and an ETH / USD feed).
 */
export type PriceSource =
  | { kind: 'rate'; numerator: bigint; denominator: bigint }
  | { kind: 'feed'; over?: Address; under?: Address }

/** Where a token's price was configured. */
export type PriceOrigin = 'RELAYER_TOKENS' | 'manifest' | 'built-in'

/** One accepted pay token and where its value comes from. */
export type TokenPrice = { token: Address; source: PriceSource; origin: PriceOrigin; /** As written, for messages. */ text: string }

const ratePattern = /^(\d{1,30})(?:\.(\d{1,36}))?$/

/** A price as written after `=` (`0.0004`, `feed:0x…`, `feed:0x…/0x…`, `feed:1/0x…`), or a problem saying what is expected. */
export function parsePrice(text: string): PriceSource | string {
  const value = text.trim()
  if (value.startsWith('feed:')) {
    const [over, under, ...rest] = value.slice('feed:'.length).split('/')
    const feedAddress = (part: string | undefined) => (part !== undefined && addressPattern.test(part) ? getAddress(part) : undefined)
    if (rest.length > 0 || over === undefined) return `"${value.slice(0, 100)}" is not a feed price: write feed:<aggregator>, feed:<aggregator>/<aggregator> or feed:1/<aggregator>`
    if (under === undefined) {
      const feed = feedAddress(over)
      return feed ? { kind: 'feed', over: feed } : `"${over.slice(0, 60)}" is not an aggregator address (0x followed by 40 hex digits)`
    }
    const below = feedAddress(under)
    if (!below) return `"${under.slice(0, 60)}" is not an aggregator address (0x followed by 40 hex digits)`
    if (over === '1') return { kind: 'feed', under: below }
    const above = feedAddress(over)
    return above ? { kind: 'feed', over: above, under: below } : `"${over.slice(0, 60)}" is not an aggregator address or 1`
  }
  const rate = ratePattern.exec(value)
  if (!rate) return `"${value.slice(0, 60)}" is not a price: write native units per whole token (e.g. 0.0004) or feed:<aggregator>`
  const fraction = rate[2] ?? ''
  const numerator = BigInt(`${rate[1]}${fraction}`)
  if (numerator === 0n) return `a price of ${value} is not a price: a token worth nothing is not accepted (leave it out)`
  return { kind: 'rate', numerator, denominator: 10n ** BigInt(fraction.length) }
}

/**
 * `RELAYER_TOKENS` (or a manifest's `tokens`): `<token>=<price>[,<token>=<price>…]`, each
 * price as `parsePrice` reads it. Returns the prices and every problem found, each naming
 * the entry.
 */
export function parseTokenPrices(entries: ReadonlyArray<readonly [string, string]>, origin: PriceOrigin): { prices: TokenPrice[]; problems: string[] } {
  const prices: TokenPrice[] = []
  const problems: string[] = []
  const seen = new Set<string>()
  for (const [rawToken, rawPrice] of entries) {
    const token = rawToken.trim()
    if (!addressPattern.test(token)) {
      problems.push(`${origin}: "${token.slice(0, 60)}" is not a token address (0x followed by 40 hex digits)`)
      continue
    }
    if (seen.has(token.toLowerCase())) {
      problems.push(`${origin}: token ${token} is priced twice`)
      continue
    }
    seen.add(token.toLowerCase())
    const source = parsePrice(rawPrice)
    if (typeof source === 'string') problems.push(`${origin}: token ${token}: ${source}`)
    else prices.push({ token: getAddress(token), source, origin, text: rawPrice.trim() })
  }
  return { prices, problems }
}

/** `a=b,c=d` as pairs; an entry without `=` is kept with an empty price (reported by parseTokenPrices). */
export function splitTokenList(text: string): Array<[string, string]> {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry): [string, string] => {
      const at = entry.indexOf('=')
      return at < 0 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)]
    })
}

/**
 * Prices from several places, the first place that names a token winning: RELAYER_TOKENS
 * over the manifest over the built-in defaults.
 */
export function mergeTokenPrices(...lists: TokenPrice[][]): TokenPrice[] {
  const byToken = new Map<string, TokenPrice>()
  for (const list of lists) for (const price of list) if (!byToken.has(price.token.toLowerCase())) byToken.set(price.token.toLowerCase(), price)
  return [...byToken.values()]
}
