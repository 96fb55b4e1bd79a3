import type { Hex } from 'viem'

const zeroChar = 48 // '0'

/** The zero and non-zero bytes of `data`, counted on the hex text (no byte array, no bigint per byte). */
function calldataBytes(data: Hex): { zero: number; other: number } {
  let zero = 0
  const length = (data.length - 2) >> 1
  for (let i = 2; i + 1 < data.length; i += 2) {
    if (data.charCodeAt(i) === zeroChar && data.charCodeAt(i + 1) === zeroChar) zero++
  }
  return { zero, other: length - zero }
}

/** 21,000 plus 4 per zero byte and 16 per other byte. */
const intrinsicCost = ({ zero, other }: { zero: number; other: number }) => 21_000n + BigInt(4 * zero + 16 * other)

/**
 * The least gas limit a node accepts for a call transaction carrying `data`: the
 * intrinsic cost (21,000 plus 4 per zero byte and 16 per other byte) or, since Prague
 * (EIP-7623), the calldata floor (21,000 plus 10 per token, a zero byte one token and
 * any other byte four), whichever is higher.
 */
export function minimumGasLimit(data: Hex): bigint {
  return minimumOf(calldataBytes(data))
}

function minimumOf(bytes: { zero: number; other: number }): bigint {
  const intrinsic = intrinsicCost(bytes)
  const floor = 21_000n + BigInt(10 * (bytes.zero + 4 * bytes.other))
  return intrinsic > floor ? intrinsic : floor
}

/**
 * The gas a transaction of limit `gas` has left for execution once its intrinsic cost
 * is paid (what the broker call gets in a batch), or undefined when the node would not
 * take the transaction at that limit.
 */
export function executionGas(data: Hex, gas: bigint): bigint | undefined {
  const bytes = calldataBytes(data)
  if (gas < minimumOf(bytes)) return undefined
  return gas - intrinsicCost(bytes)
}

/**
 * The gas a transaction carrying `data` uses when its execution takes `execution`: the
 * intrinsic cost plus the execution, or the calldata floor (EIP-7623) when that is higher.
 */
export function transactionGas(data: Hex, execution: bigint): bigint {
  const bytes = calldataBytes(data)
  const used = intrinsicCost(bytes) + execution
  const floor = minimumOf(bytes)
  return used > floor ? used : floor
}
