import { encodeFunctionData, type Hex } from 'viem'
import { type RelayRequest, toOrderStruct } from '../wire/index.ts'
import { brokerAbi } from './generated/artifacts.ts'

/**
 * The calldata of `Broker.broker(order, validAfter, validBefore, v, r, s)` for a
 * signed request, the order passed through verbatim.
 *
 * @example
 * const data = encodeBrokerCall(request)
 * await client.call({ account: relayer, to: broker, data })
 */
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
