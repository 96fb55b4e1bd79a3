import { type Address, type Hex, parseAbi } from 'viem'
import type { RelayerContext } from '../context.ts'
import type { Settlement } from '../settlementFinder.ts'

const authorizationStateAbi = parseAbi(['function authorizationState(address authorizer, bytes32 nonce) view returns (bool)'])

/**
 * The txHash that settled an orderHash: this relayer's journal, else the Broker's
 * logs. Best effort: a node that refuses the log query yields undefined, never an error.
 */
export async function findSettlement(context: RelayerContext, orderHash: Hex): Promise<Hex | undefined> {
  return (await findSettled(context, orderHash))?.txHash
}

/** `findSettlement` with the block: the journal's settled slot, else the Broker's logs; undefined also when the logs cannot be read. */
export async function findSettled(context: Pick<RelayerContext, 'journal' | 'settlements'>, orderHash: Hex): Promise<Settlement | undefined> {
  const slot = context.journal.byOrder(orderHash)
  if (slot?.status === 'settled') return { txHash: slot.txHash, blockNumber: slot.blockNumber ?? 0n }
  try {
    return await context.settlements.find(orderHash)
  } catch {
    return undefined
  }
}

/**
 * Whether the pay token holds the order's authorization as used (or cancelled:
 * EIP-3009 keeps one flag for both), read with `authorizationState(consumer, orderHash)`
 * at `latest`; undefined when the call fails (a token without it, or the RPC).
 */
export async function authorizationUsed(context: Pick<RelayerContext, 'client'>, consumer: Address, payToken: Address, orderHash: Hex): Promise<boolean | undefined> {
  try {
    return await context.client.readContract({ address: payToken, abi: authorizationStateAbi, functionName: 'authorizationState', args: [consumer, orderHash] })
  } catch {
    return undefined
  }
}

/** Why an order's authorization is used: settled (by any relayer), cancelled by the consumer, or not known yet. */
export type UsedAuthorization = { kind: 'settled'; settlement: Settlement } | { kind: 'cancelled'; txHash: Hex } | { kind: 'unknown' }

/**
 * What used an order's authorization, once the token says it is used: the Broker's
 * settlement (this journal or the logs), else the consumer's cancellation, else
 * `unknown` (the node does not show either yet: a lagging backend, or logs it
 * refuses to search). Only `cancelled`, or a revert of the order itself, lets a client
 * be told to build a new order; a settled order is answered naming its tx.
 */
export async function whyAuthorizationUsed(context: Pick<RelayerContext, 'journal' | 'settlements'>, orderHash: Hex): Promise<UsedAuthorization> {
  const settlement = await findSettled(context, orderHash)
  if (settlement) return { kind: 'settled', settlement }
  try {
    const cancellation = await context.settlements.findCancellation(orderHash)
    if (cancellation) return { kind: 'cancelled', txHash: cancellation.txHash }
  } catch {}
  return { kind: 'unknown' }
}
