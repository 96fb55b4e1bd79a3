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
 * reverted, else unknown. A mined tx comes with its block, its confirmations and
 * whether it is final (a reorg before then makes this relayer's order pending again).
 * @throws RelayError MALFORMED_ORDER for a malformed orderHash, UPSTREAM_RPC when the logs cannot be read
 */
export async function brokerStatus(context: Pick<RelayerContext, 'journal' | 'settlements' | 'outcomes' | 'client' | 'config'>, raw: string): Promise<BrokerStatus> {
  const parsed = v.safeParse(Bytes32Schema, raw)
  if (!parsed.success) throw new RelayError('MALFORMED_ORDER', 'malformed orderHash: must be 32 bytes of hex: 0x followed by 64 hex digits')
  const orderHash = parsed.output.toLowerCase() as Hex
  const slot = context.journal.byOrder(orderHash)
  if (slot?.status === 'pending') return { orderHash, status: 'pending', txHash: slot.txHash }
  if (slot?.status === 'settled') return { orderHash, status: slot.status, txHash: slot.txHash, ...(await depth(context, slot.blockNumber, slot.confirmed)) }
  const shared = slot ? undefined : await context.outcomes?.read(orderHash)
  if (shared?.status === 'settled') return { orderHash, status: 'settled', txHash: shared.txHash, ...(await depth(context, toBlock(shared.blockNumber))) }
  let settlement
  try {
    settlement = await context.settlements.find(orderHash)
  } catch (error) {
    throw new RelayError('UPSTREAM_RPC', "the relayer's RPC failed while reading the Broker's logs; retry or try another relayer", { cause: error })
  }
  if (settlement) return { orderHash, status: 'settled', txHash: settlement.txHash, ...(await depth(context, settlement.blockNumber)) }
  // Reverted and settled by no one (a settlement by another relayer wins above).
  if (slot?.status === 'reverted') return { orderHash, status: 'reverted', txHash: slot.txHash, ...(await depth(context, slot.blockNumber, slot.confirmed)) }
  // Another replica's tx not found settled in the logs: still pending there, or reverted.
  if (shared) {
    return { orderHash, status: shared.status, txHash: shared.txHash, ...(shared.status === 'pending' ? {} : await depth(context, toBlock(shared.blockNumber))) }
  }
  return { orderHash, status: 'unknown' }
}

const toBlock = (decimal: string | undefined): bigint | null => (decimal === undefined ? null : BigInt(decimal))

/**
 * A mined tx's block, its confirmations as of the chain head (read at most once per
 * RELAYER_RECEIPT_POLL_MS, and left out when the read fails: the block and `final`
 * still answer), and whether it is final: the journal's word for this relayer's own
 * txs (confirmed once the receipt watcher saw the block RELAYER_CONFIRMATIONS deep and
 * still the chain's), the depth's for another relayer's.
 */
async function depth(
  context: Pick<RelayerContext, 'client' | 'config'>,
  blockNumber: bigint | null,
  confirmed?: boolean,
): Promise<Pick<BrokerStatus, 'blockNumber' | 'confirmations' | 'final'>> {
  if (blockNumber === null) return confirmed === undefined ? {} : { final: confirmed }
  const head = await context.client.getBlockNumber({ cacheTime: context.config.receiptPollMs }).catch(() => undefined)
  // A head read before the block came is behind it: the block itself is one confirmation.
  const confirmations = head === undefined ? undefined : head < blockNumber ? 1 : Number(head - blockNumber) + 1
  const final = confirmed ?? (confirmations !== undefined && confirmations >= context.config.confirmations)
  return { blockNumber: blockNumber.toString(), ...(confirmations === undefined ? {} : { confirmations }), final }
}
