import * as v from 'valibot'
import type { Hex } from 'viem'
import { type BrokerStatus, Bytes32Schema } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'

/**
 * `GET /broker/{orderHash}`: this relayer's journal first (pending, or settled by
 * its own tx), then what another relayer replica published in Redis (settled or
 * pending; RELAYER_REDIS_URL), else the Broker's `Brokered` logs (settled by any relayer; misses
 * cached, see findSettlement.ts), else reverted when this relayer's tx for it
 * reverted, else unknown.
 * @throws RelayError MALFORMED_ORDER for a malformed orderHash, UPSTREAM_RPC when the logs cannot be read
 */
export async function brokerStatus(context: Pick<RelayerContext, 'journal' | 'settlements' | 'outcomes'>, raw: string): Promise<BrokerStatus> {
  const parsed = v.safeParse(Bytes32Schema, raw)
  if (!parsed.success) throw new RelayError('MALFORMED_ORDER', 'malformed orderHash: must be 32 bytes of hex: 0x followed by 64 hex digits')
  const orderHash = parsed.output.toLowerCase() as Hex
  const slot = context.journal.byOrder(orderHash)
  if (slot?.status === 'pending') return { orderHash, status: 'pending', txHash: slot.txHash }
  if (slot?.status === 'settled') {
    return { orderHash, status: slot.status, txHash: slot.txHash, ...(slot.blockNumber === null ? {} : { blockNumber: slot.blockNumber.toString() }) }
  }
  const shared = slot ? undefined : await context.outcomes?.read(orderHash)
  if (shared?.status === 'settled') {
    return { orderHash, status: 'settled', txHash: shared.txHash, ...(shared.blockNumber === undefined ? {} : { blockNumber: shared.blockNumber }) }
  }
  let settlement
  try {
    settlement = await context.settlements.find(orderHash)
  } catch (error) {
    throw new RelayError('UPSTREAM_RPC', "the relayer's RPC failed while reading the Broker's logs; retry or try another relayer", { cause: error })
  }
  if (settlement) return { orderHash, status: 'settled', txHash: settlement.txHash, blockNumber: settlement.blockNumber.toString() }
  // Reverted and settled by no one (a settlement by another relayer wins above).
  if (slot?.status === 'reverted') {
    return { orderHash, status: 'reverted', txHash: slot.txHash, ...(slot.blockNumber === null ? {} : { blockNumber: slot.blockNumber.toString() }) }
  }
  // Another replica's tx not found settled in the logs: still pending there, or reverted.
  if (shared) return { orderHash, status: shared.status, txHash: shared.txHash, ...(shared.blockNumber === undefined ? {} : { blockNumber: shared.blockNumber }) }
  return { orderHash, status: 'unknown' }
}
