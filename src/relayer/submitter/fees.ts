import type { Fees } from './feeCache.ts'

/** Fees for a replacement: at least the fresh estimate and 12.5 % over the old (nodes require +10 %). */
export function bumped(old: Fees, fresh: Fees): Fees {
  const up = (value: bigint) => value + (value + 7n) / 8n
  const max = (a: bigint, b: bigint) => (a > b ? a : b)
  return { maxFeePerGas: max(fresh.maxFeePerGas, up(old.maxFeePerGas)), maxPriorityFeePerGas: max(fresh.maxPriorityFeePerGas, up(old.maxPriorityFeePerGas)) }
}
