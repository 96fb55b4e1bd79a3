import { encodeFunctionData, type Hex } from 'viem'
import { brokerAbi, decodeRevert, errorAbis, extractRevertData, isRevertError } from '../../chain/index.ts'
import { type RelayRequest, toOrderStruct } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'
import { findSettlement } from './findSettlement.ts'

export type SimulatedOrder = { data: Hex; gas: bigint }

/** The Broker calldata for a request, the order passed through verbatim. */
export function encodeBrokerCall(request: RelayRequest): Hex {
  return encodeFunctionData({
    abi: brokerAbi,
    functionName: 'broker',
    args: [
      toOrderStruct(request.order),
      BigInt(request.validAfter),
      BigInt(request.validBefore),
      request.signature.v,
      request.signature.r as Hex,
      request.signature.s as Hex,
    ],
  })
}

/**
 * Step 5: one `eth_call` of `broker(...)` from the relayer's own address, so an order
 * that would revert is refused without spending gas. The revert is decoded against
 * every ABI the call can reach (broker, adapters, token, OpenZeppelin).
 * @throws RelayError WOULD_REVERT, AUTH_EXPIRED (token says expired), UPSTREAM_RPC
 */
export async function simulate(context: RelayerContext, request: RelayRequest, orderHash: Hex): Promise<SimulatedOrder> {
  const { client, config, submitter } = context
  const data = encodeBrokerCall(request)
  try {
    await client.call({ account: submitter.address, to: config.broker, data })
  } catch (error) {
    if (!isRevertError(error)) {
      throw new RelayError('UPSTREAM_RPC', "the relayer's RPC failed during simulation; retry or try another relayer", { cause: error })
    }
    throw await revertToRelayError(context, decodeRevert(extractRevertData(error), errorAbis).text, orderHash)
  }
  let gas: bigint
  try {
    gas = await context.gasLimits.get(request.order.adapter as Hex, { account: submitter.address, to: config.broker, data })
  } catch (error) {
    if (isRevertError(error)) throw await revertToRelayError(context, decodeRevert(extractRevertData(error), errorAbis).text, orderHash)
    throw new RelayError('UPSTREAM_RPC', "the relayer's RPC failed while estimating gas; retry or try another relayer", { cause: error })
  }
  return { data, gas }
}

/** Maps a decoded revert to the code a client acts on. */
export async function revertToRelayError(context: RelayerContext, reason: string, orderHash: Hex): Promise<RelayError> {
  if (/authorization expired|authorization is expired/i.test(reason)) {
    return new RelayError('AUTH_EXPIRED', `would revert: ${reason}; re-sign with a fresh window`)
  }
  if (/authorization used|authorization is used/i.test(reason)) {
    const txHash = await findSettlement(context, orderHash)
    const where = txHash ? ` (already settled in tx ${txHash})` : ''
    return new RelayError('WOULD_REVERT', `would revert: ${reason}${where}; build a new order with a fresh nonce`)
  }
  return new RelayError('WOULD_REVERT', `would revert: ${reason}`)
}
