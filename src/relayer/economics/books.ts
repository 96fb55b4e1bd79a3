import type { Address } from 'viem'

/** What the gas key earned and spent since its journal began. */
export type BooksSummary = {
  /** Fees earned per pay token: base units, their native value when the orders were signed, orders settled. */
  tokens: Array<{ token: Address; feesEarned: bigint; feesEarnedWei: bigint; orders: number; unvaluedOrders: number }>
  /** Native value of every fee earned (orders paid in unvalued tokens count 0). */
  feesEarnedWei: bigint
  /** Wei every mined tx of the key cost (orders, replacements, fillers, reverts). */
  gasSpentWei: bigint
  /** feesEarnedWei − gasSpentWei. */
  netWei: bigint
}

/**
 * The gas key's books: fees earned per pay token (and their native value at signing) and
 * gas spent, over everything the journal holds. An index of the journal, fed by it
 * (Journal.observe), never a store of its own.
 */
export function createBooks() {
  const tokens = new Map<string, { token: Address; feesEarned: bigint; feesEarnedWei: bigint; orders: number; unvaluedOrders: number }>()
  let gasSpentWei = 0n
  return {
    /** A settled order's fee: `feeValueWei` null when its token had no value. */
    earned(token: Address, feeAmount: bigint, feeValueWei: bigint | null) {
      const key = token.toLowerCase()
      let entry = tokens.get(key)
      if (!entry) tokens.set(key, (entry = { token, feesEarned: 0n, feesEarnedWei: 0n, orders: 0, unvaluedOrders: 0 }))
      entry.feesEarned += feeAmount
      entry.orders++
      if (feeValueWei === null) entry.unvaluedOrders++
      else entry.feesEarnedWei += feeValueWei
    },
    spent(wei: bigint) {
      gasSpentWei += wei
    },
    summary(): BooksSummary {
      const list = [...tokens.values()].map((entry) => ({ ...entry }))
      const feesEarnedWei = list.reduce((sum, entry) => sum + entry.feesEarnedWei, 0n)
      return { tokens: list, feesEarnedWei, gasSpentWei, netWei: feesEarnedWei - gasSpentWei }
    },
  }
}

export type Books = ReturnType<typeof createBooks>
