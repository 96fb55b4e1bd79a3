import type { Fees } from './feeCache.ts'

/** Fees for a replacement: at least the fresh estimate and 12.5 % over the old (nodes require +10 %). */
export function bumped(old: Fees, fresh: Fees): Fees {
  const up = (value: bigint) => value + (value + 7n) / 8n
  const max = (a: bigint, b: bigint) => (a > b ? a : b)
  return { maxFeePerGas: max(fresh.maxFeePerGas, up(old.maxFeePerGas)), maxPriorityFeePerGas: max(fresh.maxPriorityFeePerGas, up(old.maxPriorityFeePerGas)) }
}

/**
 * Fees for a replacement under a cap (RELAYER_MAX_FEE_PER_GAS_WEI): `bumped`, lowered to the
 * cap; undefined when the capped fees do not beat the old ones by 12.5 % (the node would
 * refuse the replacement): the tx then waits for the base fee to fall.
 */
export function bumpedWithin(old: Fees, fresh: Fees, cap: bigint | undefined): Fees | undefined {
  const wanted = bumped(old, fresh)
  if (cap === undefined || wanted.maxFeePerGas <= cap) return wanted
  const up = (value: bigint) => value + (value + 7n) / 8n
  const maxFeePerGas = cap
  const maxPriorityFeePerGas = wanted.maxPriorityFeePerGas < cap ? wanted.maxPriorityFeePerGas : cap
  if (maxFeePerGas < up(old.maxFeePerGas) || maxPriorityFeePerGas < up(old.maxPriorityFeePerGas)) return undefined
  return { maxFeePerGas, maxPriorityFeePerGas }
}
