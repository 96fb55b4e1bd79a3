import type { Hex } from 'viem'
import { brokeredEvent } from '../../chain/index.ts'
import type { RelayerContext } from '../context.ts'

/**
 * The txHash that settled an orderHash: from this relayer's memory, else from the
 * Broker's `Brokered` logs (orderHash is indexed). Best effort: a node that refuses
 * the log query yields undefined, never an error.
 */
export async function findSettlement(context: RelayerContext, orderHash: Hex): Promise<Hex | undefined> {
  const remembered = context.settled.get(orderHash)
  if (remembered) return remembered
  try {
    const logs = await context.client.getLogs({
      address: context.config.broker,
      event: brokeredEvent,
      args: { orderHash },
      fromBlock: context.config.deployedAt,
      toBlock: 'latest',
    })
    return logs[0]?.transactionHash ?? undefined
  } catch {
    return undefined
  }
}
