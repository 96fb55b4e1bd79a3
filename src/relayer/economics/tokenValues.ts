import { type Address, erc20Abi, getAddress, type PublicClient, parseAbi } from 'viem'
import { backgroundRefresh, type Logger, sharedInFlight } from '../../shared/index.ts'
import { isTransportError } from '../rpcErrors.ts'
import type { PriceSource, TokenPrice } from './tokenPrices.ts'

const aggregatorAbi = parseAbi([
  'function decimals() view returns (uint8)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
])

/** Wei in one whole native coin (ETH on every chain the relayer serves). */
const weiPerNative = 10n ** 18n

/** A value as a fraction: wei per base unit of a token = numerator / denominator. */
type Rate = { numerator: bigint; denominator: bigint }

/** What `GET /info` and the start-up line say of an accepted token. */
export type AcceptedToken = {
  token: Address
  symbol?: string
  decimals?: number
  /** Native units per whole token, as a decimal string; absent while the token cannot be valued. */
  nativePerToken?: string
  /** `fixed` (a configured rate) or `feed` (Chainlink feeds). */
  source: 'fixed' | 'feed'
  /** Whether orders paid in it are accepted now (false while a feed is stale or its token unreadable). */
  priced: boolean
}

export type TokenValuesOptions = {
  client: PublicClient
  prices: readonly TokenPrice[]
  /** A feed answer older than this (seconds, by its `updatedAt`) does not price anything. */
  maxAgeSeconds: number
  /** How often the feeds (and unread decimals) are read again. */
  refreshMs: number
  logger: Logger
  now?: () => number
}

/**
 * Whether a token can be valued now: `priced`, or why not; `rpc` when only a failed read stands
 * in the way (the node did not answer), which a fresh read may cure.
 */
export type TokenStatus = { priced: true } | { priced: false; why: string; rpc: boolean }

type TokenState = { price: TokenPrice; decimals?: number; symbol?: string; unreadable?: string; rpcFailed?: boolean; unpricedWhy?: string }
type FeedState = { decimals?: number; answer?: bigint; updatedAt?: bigint; rpcFailed?: boolean; broken?: string }

/**
 * What each accepted pay token is worth in the chain's native currency: its decimals read
 * once from the token, its value from a fixed rate or from Chainlink-compatible feeds
 * (`latestRoundData`) read in the background. A feed whose answer is zero or negative, or
 * older than `maxAgeSeconds`, leaves its tokens unpriced until a fresh answer comes; so does
 * a token whose `decimals()` cannot be read. Unpriced tokens are worth nothing here (the
 * relayer refuses them, steps/checkTokenAccepted.ts).
 *
 * @example
 * const values = createTokenValues({ client, prices, maxAgeSeconds: 90_000, refreshMs: 60_000, logger })
 * await values.start()
 * values.worth(usdc, 50_000n) // wei the fee is worth, or undefined
 */
export function createTokenValues(options: TokenValuesOptions) {
  const { client, logger } = options
  const now = options.now ?? Date.now
  const tokens = new Map<string, TokenState>()
  const feeds = new Map<string, FeedState>()
  for (const price of options.prices) {
    tokens.set(price.token.toLowerCase(), { price })
    if (price.source.kind === 'feed') {
      for (const feed of [price.source.over, price.source.under]) if (feed) feeds.set(feed.toLowerCase(), {})
    }
  }

  async function readToken(state: TokenState): Promise<void> {
    if (state.decimals !== undefined) return
    try {
      const [decimals, symbol] = await Promise.all([
        client.readContract({ address: state.price.token, abi: erc20Abi, functionName: 'decimals' }),
        client.readContract({ address: state.price.token, abi: erc20Abi, functionName: 'symbol' }).catch(() => undefined),
      ])
      state.decimals = Number(decimals)
      if (symbol !== undefined) state.symbol = symbol.slice(0, 20)
      if (state.unreadable) logger.info(`pay token ${describe(state)} can be read again; accepted`)
      state.unreadable = undefined
      state.rpcFailed = false
    } catch (error) {
      // The node did not answer: nothing is known of the token yet, and a later read may tell.
      if (isTransportError(error)) {
        state.rpcFailed = true
        throw error
      }
      state.rpcFailed = false
      const why = `its decimals() cannot be read (${(error as Error).name}): is it a token on this chain?`
      if (state.unreadable === undefined && state.price.origin !== 'built-in') logger.warn(`pay token ${state.price.token} (${state.price.origin}) is not accepted: ${why}`)
      state.unreadable = why
    }
  }

  async function readFeed(address: string, state: FeedState): Promise<void> {
    const feed = getAddress(address)
    try {
      const [decimals, round] = await Promise.all([
        state.decimals === undefined ? client.readContract({ address: feed, abi: aggregatorAbi, functionName: 'decimals' }) : Promise.resolve(state.decimals),
        client.readContract({ address: feed, abi: aggregatorAbi, functionName: 'latestRoundData' }),
      ])
      state.decimals = Number(decimals)
      state.answer = round[1]
      state.updatedAt = round[3]
      state.rpcFailed = false
      state.broken = undefined
    } catch (error) {
      state.rpcFailed = isTransportError(error)
      // Answered, but not as an AggregatorV3Interface does: it prices nothing until it does.
      if (!state.rpcFailed) state.broken = `feed ${feed} does not answer latestRoundData() (${(error as Error).name}): is it a Chainlink aggregator on this chain?`
      throw error
    }
  }

  /** Why a feed prices nothing now, or undefined when its answer is usable. */
  function feedProblem(address: Address): string | undefined {
    const state = feeds.get(address.toLowerCase())
    if (state?.broken) return state.broken
    if (!state || state.answer === undefined || state.updatedAt === undefined || state.decimals === undefined) return `feed ${address} has not answered yet`
    if (state.answer <= 0n) return `feed ${address} answered ${state.answer} (not a price)`
    const age = BigInt(Math.floor(now() / 1000)) - state.updatedAt
    if (age > BigInt(options.maxAgeSeconds)) return `feed ${address}'s answer is ${age} s old, over RELAYER_PRICE_MAX_AGE_S (${options.maxAgeSeconds} s)`
    return undefined
  }

  /** Wei per base unit of the token now, or why there is none. */
  function rateOf(state: TokenState): Rate | string {
    if (state.unreadable) return state.unreadable
    if (state.decimals === undefined) return 'its decimals have not been read yet'
    const unit = 10n ** BigInt(state.decimals)
    const source: PriceSource = state.price.source
    if (source.kind === 'rate') return { numerator: source.numerator * weiPerNative, denominator: source.denominator * unit }
    let numerator = weiPerNative
    let denominator = unit
    for (const [feed, side] of [[source.over, 'over'], [source.under, 'under']] as const) {
      if (!feed) continue
      const problem = feedProblem(feed)
      if (problem) return problem
      const { answer, decimals } = feeds.get(feed.toLowerCase())! as { answer: bigint; decimals: number }
      const scale = 10n ** BigInt(decimals)
      if (side === 'over') {
        numerator *= answer
        denominator *= scale
      } else {
        numerator *= scale
        denominator *= answer
      }
    }
    return { numerator, denominator }
  }

  function describe(state: TokenState): string {
    return state.symbol ? `${state.price.token} (${state.symbol})` : state.price.token
  }

  /** Logs each token that became unpriced or priced again since the last look. */
  function noteChanges() {
    for (const state of tokens.values()) {
      if (state.unreadable) continue
      const rate = rateOf(state)
      const why = typeof rate === 'string' ? rate : undefined
      if (why && why !== state.unpricedWhy) logger.warn(`pay token ${describe(state)} is not accepted until it can be valued: ${why}`)
      if (!why && state.unpricedWhy) logger.info(`pay token ${describe(state)} is valued again (${nativePerToken(state) ?? '?'} native per token); accepted`)
      state.unpricedWhy = why
    }
  }

  /** The feeds of tokens that exist here (a built-in default's token absent from this chain needs no price). */
  function feedsInUse(): Array<[string, FeedState]> {
    const used = new Set<string>()
    for (const state of tokens.values()) {
      const source = state.price.source
      if (state.unreadable || source.kind !== 'feed') continue
      for (const feed of [source.over, source.under]) if (feed) used.add(feed.toLowerCase())
    }
    return [...feeds.entries()].filter(([address]) => used.has(address))
  }

  const refresh = sharedInFlight(async (): Promise<void> => {
    const read = await Promise.allSettled([...tokens.values()].map(readToken))
    const results = [...read, ...(await Promise.allSettled(feedsInUse().map(([address, state]) => readFeed(address, state))))]
    noteChanges()
    const failed = results.find((result) => result.status === 'rejected')
    if (failed) throw (failed as PromiseRejectedResult).reason
  })
  const ticker = backgroundRefresh(refresh, { everyMs: options.refreshMs, logger, what: 'pay token price feed read' })

  function nativePerToken(state: TokenState): string | undefined {
    const rate = rateOf(state)
    if (typeof rate === 'string' || state.decimals === undefined) return undefined
    // Native per whole token with 18 decimals: wei per whole token, written as a decimal.
    const wei = (rate.numerator * 10n ** BigInt(state.decimals)) / rate.denominator
    const whole = wei / weiPerNative
    const fraction = (wei % weiPerNative).toString().padStart(18, '0').replace(/0+$/, '')
    return fraction ? `${whole}.${fraction}` : `${whole}`
  }

  const stateOf = (token: Address) => tokens.get(token.toLowerCase())

  /** The token's status now (see TokenStatus). */
  function statusOf(token: Address): TokenStatus {
    const state = stateOf(token)
    if (!state) return { priced: false, why: 'this relayer has no price for it', rpc: false }
    const rate = rateOf(state)
    if (typeof rate !== 'string') return { priced: true }
    const source = state.price.source
    const feedsFailed = source.kind === 'feed' && [source.over, source.under].some((feed) => feed && feeds.get(feed.toLowerCase())?.rpcFailed && feeds.get(feed.toLowerCase())?.answer === undefined)
    const rpc = (state.decimals === undefined && state.rpcFailed === true) || feedsFailed
    return { priced: false, why: rpc ? `the relayer's RPC failed while reading it (${rate})` : rate, rpc }
  }

  return {
    /** Reads every token's decimals and every feed once (failures are logged, not thrown), then keeps the feeds fresh. */
    async start(): Promise<void> {
      await refresh().catch(() => undefined)
      ticker.start()
    },
    stop: ticker.stop,
    /** Reads the feeds now (tests, and a relayer that wants a fresh price before answering). */
    refresh,
    /** The wei `amount` base units of `token` are worth now (rounded down), or undefined when the token is not valued. */
    worth(token: Address, amount: bigint): bigint | undefined {
      const state = stateOf(token)
      if (!state) return undefined
      const rate = rateOf(state)
      return typeof rate === 'string' ? undefined : (amount * rate.numerator) / rate.denominator
    },
    /** The fewest base units of `token` worth at least `wei`, or undefined when the token is not valued. */
    amountFor(token: Address, wei: bigint): bigint | undefined {
      const state = stateOf(token)
      if (!state) return undefined
      const rate = rateOf(state)
      if (typeof rate === 'string') return undefined
      return (wei * rate.denominator + rate.numerator - 1n) / rate.numerator
    },
    /** Why `token` is not valued now (not configured, unreadable, stale feed…), or undefined when it is. */
    unpricedWhy(token: Address): string | undefined {
      const status = statusOf(token)
      return status.priced ? undefined : status.why
    },
    status: statusOf,
    /** The token's status, read again first when only a failed RPC read stood in the way. */
    async ensure(token: Address): Promise<TokenStatus> {
      const status = statusOf(token)
      if (status.priced || !status.rpc) return status
      await refresh().catch(() => undefined)
      return statusOf(token)
    },
    /** `0x… (SYMBOL)` for messages (the address alone when the symbol is unknown). */
    describe(token: Address): string {
      const state = stateOf(token)
      return state ? describe(state) : token
    },
    /** Every configured token that exists on this chain (built-in defaults that do not are left out). */
    accepted(): AcceptedToken[] {
      const list: AcceptedToken[] = []
      for (const state of tokens.values()) {
        if (state.unreadable && state.price.origin === 'built-in') continue
        const value = nativePerToken(state)
        list.push({
          token: state.price.token,
          ...(state.symbol ? { symbol: state.symbol } : {}),
          ...(state.decimals !== undefined ? { decimals: state.decimals } : {}),
          ...(value ? { nativePerToken: value } : {}),
          source: state.price.source.kind === 'rate' ? 'fixed' : 'feed',
          priced: value !== undefined,
        })
      }
      return list
    },
  }
}

export type TokenValues = ReturnType<typeof createTokenValues>
