import type { Address, PublicClient } from 'viem'
import type { Logger } from '../../shared/index.ts'
import type { RelayError } from '../errors.ts'
import { type BooksSummary, createBooks } from './books.ts'
import { type EconomicsLimits, type JudgeOptions, judgeOrder, type OrderTerms, type Verdict } from './judgeOrder.ts'
import { createL1Component } from './l1Component.ts'
import type { FeeQuote } from './orderCost.ts'
import { createSpendLedger, type SpendTotals } from './spendLedger.ts'
import type { TokenPrice } from './tokenPrices.ts'
import { createTokenValues } from './tokenValues.ts'

/** The relayer's economics settings (RELAYER_* variables, docs/economics.md). */
export type EconomicsConfig = EconomicsLimits & {
  /** Accepted pay tokens and where their values come from (RELAYER_TOKENS, the manifest's `tokens`, built-in defaults). */
  tokens: TokenPrice[]
  /** A feed answer older than this does not price anything (RELAYER_PRICE_MAX_AGE_S). */
  priceMaxAgeSeconds: number
  /** How often price feeds are read (RELAYER_PRICE_REFRESH_MS). */
  priceRefreshMs: number
  /** No tx, bump or filler is signed over this fee cap; orders are refused while the base fee is over it (RELAYER_MAX_FEE_PER_GAS_WEI). */
  maxFeePerGasWei?: bigint
  /** The most tip a tx offers per gas, whatever the node suggests (RELAYER_MAX_PRIORITY_FEE_WEI). */
  maxPriorityFeePerGasWei: bigint
  /** The window the spending cap and the unpriced budget count over (an hour; shorter only in tests). */
  spendWindowMs?: number
}

/** What the operator sees of the money (GET /status, the status page, /metrics). */
export type EconomicsSummary = BooksSummary & {
  /** The sliding hour's spending against its cap. */
  lastHour: SpendTotals & { capWei: bigint | undefined; unpricedBudgetWei: bigint }
  /** Hours the balance lasts at the last hour's spending; undefined when nothing was spent or the balance is unknown. */
  runwayHours: number | undefined
}

/**
 * What keeps the gas key from paying more for an order than the order earns
 * (docs/economics.md): the pay tokens' values, the L1 data component, the sliding hour's
 * spending, and `judge`, which every order passes after simulation and again when its
 * tx is signed.
 *
 * @example
 * const economics = createEconomics({ config: config.economics, client, chainId, logger })
 * await economics.start(broker)
 */
export function createEconomics(options: { config: EconomicsConfig; client: PublicClient; chainId: number; logger: Logger }) {
  const { config, client, logger } = options
  const values = createTokenValues({ client, prices: config.tokens, maxAgeSeconds: config.priceMaxAgeSeconds, refreshMs: config.priceRefreshMs, logger })
  const l1 = createL1Component({ client, chainId: options.chainId, logger })
  const ledger = createSpendLedger(config.spendWindowMs === undefined ? {} : { windowMs: config.spendWindowMs })
  const books = createBooks()

  return {
    config,
    values,
    l1,
    ledger,
    books,
    /** The books, the last hour against its cap, and the balance's runway at that burn. */
    summary(balanceWei: bigint | undefined): EconomicsSummary {
      const lastHour = ledger.totals()
      const perHour = (lastHour.spentWei * 3_600_000n) / BigInt(ledger.windowMs)
      const runwayHours = balanceWei === undefined || perHour === 0n ? undefined : Number((balanceWei * 1000n) / perHour) / 1000
      return {
        ...books.summary(),
        lastHour: { ...lastHour, capWei: config.maxSpendWeiPerHour, unpricedBudgetWei: config.unpricedGasBudgetWei },
        runwayHours,
      }
    },
    /** See judgeOrder. */
    judge(terms: OrderTerms, fees: FeeQuote, options?: JudgeOptions): Verdict | RelayError {
      return judgeOrder({ values, ledger, limits: config }, terms, fees, options)
    },
    /** Reads tokens and feeds and asks for NodeInterface. */
    async start(broker: Address): Promise<void> {
      await Promise.all([values.start(), l1.detect(broker)])
    },
    /** The start-up lines: which tokens are accepted, at what value, and the operator's limits. */
    describe(): string[] {
      const lines: string[] = []
      const accepted = values.accepted()
      if (accepted.length === 0) {
        lines.push(
          config.unpricedGasBudgetWei > 0n
            ? `pay tokens: none valued; orders in any token are relayed within RELAYER_UNPRICED_GAS_BUDGET_WEI (${config.unpricedGasBudgetWei} wei of gas per hour)`
            : 'pay tokens: none accepted; every order is refused FEE_BELOW_FLOOR until RELAYER_TOKENS names a token and its price (docs/economics.md)',
        )
      } else {
        const list = accepted.map((each) => `${values.describe(each.token)} at ${each.nativePerToken ?? '(not valued yet)'} native per token (${each.source})`)
        lines.push(`pay tokens accepted: ${list.join('; ')}; an order's fee must be worth its gas plus ${config.minMarginBps} bps (RELAYER_MIN_MARGIN_BPS)`)
        if (config.unpricedGasBudgetWei > 0n) lines.push(`other pay tokens: relayed within RELAYER_UNPRICED_GAS_BUDGET_WEI (${config.unpricedGasBudgetWei} wei of gas per hour)`)
      }
      const caps = [
        config.maxFeePerGasWei !== undefined ? `no tx signed over ${config.maxFeePerGasWei} wei per gas (RELAYER_MAX_FEE_PER_GAS_WEI)` : undefined,
        config.maxSpendWeiPerHour !== undefined ? `at most ${config.maxSpendWeiPerHour} wei of gas per hour (RELAYER_MAX_SPEND_WEI_PER_HOUR)` : undefined,
      ].filter(Boolean)
      if (caps.length > 0) lines.push(`gas caps: ${caps.join('; ')}`)
      return lines
    },
    stop(): void {
      values.stop()
    },
  }
}

export type Economics = ReturnType<typeof createEconomics>
