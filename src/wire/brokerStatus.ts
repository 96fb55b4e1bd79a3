import * as v from 'valibot'
import { BlockNumberStringSchema, Bytes32Schema } from './primitives.ts'

/** What a relayer knows about an order (`GET /broker/{orderHash}`). */
export const brokerStatusList = ['pending', 'settled', 'reverted', 'unknown'] as const

/** Answer of `GET /broker/{orderHash}`. */
export const BrokerStatusSchema = v.object({
  orderHash: Bytes32Schema,
  status: v.pipe(
    v.picklist(brokerStatusList),
    v.description(
      "pending: this relayer's tx for it awaits a block; settled: a Brokered event for it is on chain (from this relayer or another); reverted: this relayer's tx for it reverted on chain (it is not sent again); unknown: neither.",
    ),
  ),
  txHash: v.optional(v.pipe(Bytes32Schema, v.description('The pending, settling or reverted transaction.'))),
  blockNumber: v.optional(v.pipe(BlockNumberStringSchema, v.description('Block of the settling or reverted tx, as a decimal string.'))),
})

export type BrokerStatus = v.InferOutput<typeof BrokerStatusSchema>
