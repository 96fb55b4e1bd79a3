import { type Hex, hexToBytes } from 'viem'

/**
 * The least gas limit a node accepts for a call transaction carrying `data`: the
 * intrinsic cost (21,000 plus 4 per zero byte and 16 per other byte) or, since Prague
 * (EIP-7623), the calldata floor (21,000 plus 10 per token, a zero byte one token and
 * any other byte four), whichever is higher.
 */
export function minimumGasLimit(data: Hex): bigint {
  let zero = 0n
  let other = 0n
  for (const byte of hexToBytes(data)) {
    if (byte === 0) zero++
    else other++
  }
  const intrinsic = 21_000n + 4n * zero + 16n * other
  const floor = 21_000n + 10n * (zero + 4n * other)
  return intrinsic > floor ? intrinsic : floor
}

/**
 * The gas a transaction of limit `gas` has left for execution once its intrinsic cost
 * is paid (what the broker call gets in a batch), or undefined when the node would not
 * take the transaction at that limit.
 */
export function executionGas(data: Hex, gas: bigint): bigint | undefined {
  if (gas < minimumGasLimit(data)) return undefined
  let cost = 21_000n
  for (const byte of hexToBytes(data)) cost += byte === 0 ? 4n : 16n
  return gas - cost
}
