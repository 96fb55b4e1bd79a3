import type { Hex } from 'viem'
import { transactionGas } from '../../chain/index.ts'

/** The fees a tx is signed with, and the base fee the next block is expected to charge. */
export type FeeQuote = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint; baseFeePerGas: bigint }

/** What one order's tx is expected to cost the gas key. */
export type OrderCost = {
  /** Gas the tx uses: from the simulation (`measured`), else its gas limit. */
  gas: bigint
  measured: boolean
  /** Gas of the L1 data component on Arbitrum-family chains (NodeInterface), else 0. */
  l1Gas: bigint
  /** The price per gas it pays: the base fee plus the tip, at most the fee cap. */
  price: bigint
  /** (gas + l1Gas) × price. */
  wei: bigint
}

/** The price per gas a tx pays at inclusion: the base fee plus its tip, at most its fee cap. */
export function effectiveGasPrice(fees: FeeQuote): bigint {
  const offered = fees.baseFeePerGas + fees.maxPriorityFeePerGas
  return offered < fees.maxFeePerGas ? offered : fees.maxFeePerGas
}

/**
 * An order's expected cost: the gas its execution took in simulation (plus the intrinsic
 * cost, or the calldata floor) at the price it will pay, plus the L1 data component. An
 * order whose simulation told no gas (a node without state overrides) is costed at its
 * gas limit, the most it can use.
 */
export function orderCost(input: { data: Hex; executionGasUsed: bigint | undefined; gasLimit: bigint; l1Gas: bigint; fees: FeeQuote }): OrderCost {
  const measured = input.executionGasUsed !== undefined
  const gas = measured ? transactionGas(input.data, input.executionGasUsed!) : input.gasLimit
  const price = effectiveGasPrice(input.fees)
  return { gas, measured, l1Gas: input.l1Gas, price, wei: (gas + input.l1Gas) * price }
}

/** The most a tx can cost the key: its whole gas limit at its fee cap. */
export const worstCost = (gasLimit: bigint, maxFeePerGas: bigint): bigint => gasLimit * maxFeePerGas
