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
  confirmations: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.description("Blocks from the tx's block to the chain head the relayer last read, the tx's own block counted: 1 in the head block. Absent while pending or when the head could not be read."),
    ),
  ),
  final: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        'Whether the outcome is final: settled or reverted in a block RELAYER_CONFIRMATIONS deep. Until then a reorg may take the tx out of the chain, and the order goes back to pending (to be sent again as signed).',
      ),
    ),
  ),
})

export type BrokerStatus = v.InferOutput<typeof BrokerStatusSchema>

/**
 * Whether a status will not change: `final` when the relayer says, else (a relayer that
 * does not count confirmations) settled or reverted.
 */
export function isFinalStatus(status: BrokerStatus): boolean {
  return status.final ?? (status.status === 'settled' || status.status === 'reverted')
}
