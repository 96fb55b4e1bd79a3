import * as v from 'valibot'
import { AddressSchema, Uint256StringSchema } from './primitives.ts'

const count = v.pipe(v.number(), v.integer(), v.minValue(0))

/** A decimal number of native units (ETH), e.g. `0.0004`. */
export const NativeAmountSchema = v.pipe(v.string(), v.regex(/^(0|[1-9][0-9]*)(\.[0-9]+)?$/), v.description('Native units (ETH) as a decimal string, e.g. 0.0004.'))

/** A whole number of wei that may be negative (a net result). */
export const SignedWeiSchema = v.pipe(v.string(), v.regex(/^-?(0|[1-9][0-9]*)$/), v.description('Wei as a decimal string, negative when more was spent than earned.'))

/** One pay token a relayer accepts (`GET /info`, docs/economics.md). */
export const AcceptedTokenSchema = v.object({
  token: AddressSchema,
  symbol: v.optional(v.string()),
  decimals: v.optional(count),
  nativePerToken: v.optional(v.pipe(NativeAmountSchema, v.description('What one whole token is worth in native units now; absent while the token cannot be valued.'))),
  source: v.pipe(v.picklist(['fixed', 'feed']), v.description('fixed: a configured rate; feed: Chainlink-compatible price feeds.')),
  priced: v.pipe(v.boolean(), v.description('Whether orders paid in it are accepted now (false while a feed is stale or the token cannot be read).')),
})

export type AcceptedToken = v.InferOutput<typeof AcceptedTokenSchema>

/** The relayer's money as `GET /status` shows it: fees earned, gas spent, the hour's spending against its cap. */
export const RelayerEconomicsSchema = v.object({
  tokens: v.array(
    v.object({
      token: AddressSchema,
      feesEarned: v.pipe(Uint256StringSchema, v.description('Fees earned in base units of the token.')),
      feesEarnedWei: v.pipe(Uint256StringSchema, v.description('Their native value when each order was signed.')),
      orders: count,
      unvaluedOrders: v.pipe(count, v.description('Orders relayed while the token had no value (within RELAYER_UNPRICED_GAS_BUDGET_WEI): counted 0 wei.')),
    }),
  ),
  feesEarnedWei: Uint256StringSchema,
  gasSpentWei: v.pipe(Uint256StringSchema, v.description('What every mined tx of the key cost (receipts: gas used × effective gas price).')),
  netWei: SignedWeiSchema,
  lastHour: v.object({
    spentWei: Uint256StringSchema,
    reservedWei: v.pipe(Uint256StringSchema, v.description('The most the txs not mined yet can still cost (gas limit × fee cap).')),
    capWei: v.pipe(v.nullable(Uint256StringSchema), v.description('RELAYER_MAX_SPEND_WEI_PER_HOUR; null when there is none.')),
    unpricedSpentWei: Uint256StringSchema,
    unpricedBudgetWei: v.pipe(Uint256StringSchema, v.description('RELAYER_UNPRICED_GAS_BUDGET_WEI; 0 refuses unvalued tokens.')),
  }),
  runwayHours: v.pipe(v.nullable(v.pipe(v.number(), v.minValue(0))), v.description("Hours the gas key's balance lasts at the last hour's spending; null when nothing was spent.")),
  gasPriceWei: v.pipe(v.nullable(Uint256StringSchema), v.description('The price per gas an order would pay now (base fee + tip, at most the fee cap); null when unknown.')),
  maxFeePerGasWei: v.pipe(v.nullable(Uint256StringSchema), v.description('RELAYER_MAX_FEE_PER_GAS_WEI; null when there is none.')),
})

export type RelayerEconomics = v.InferOutput<typeof RelayerEconomicsSchema>
