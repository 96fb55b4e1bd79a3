import { type Address, parseSignature, type LocalAccount, type PublicClient, type TypedDataDomain } from 'viem'
import { hashOrder, type Order, receiveAuthorizationTypedData, type RelayRequest } from '../wire/index.ts'
import { readTokenDomain } from './tokenDomain.ts'

export type SignOrderParameters = {
  /** The consumer: signs the authorization and pays `order.amount`. */
  account: LocalAccount
  order: Order
  /** The Broker contract the order is relayed through (the authorization's `to`). */
  broker: Address
  chainId: number
  /** Reads the token's EIP-712 domain when `domain` is not given. */
  client?: PublicClient
  /** The token's EIP-712 domain; read from the chain when absent. */
  domain?: TypedDataDomain
  /** Unix seconds; default 0. */
  validAfter?: bigint
  /** Unix seconds; default one hour from now. */
  validBefore?: bigint
}

/**
 * Builds a RelayRequest: the consumer's EIP-3009 `ReceiveWithAuthorization` to the
 * Broker, with the orderHash as its nonce, so the order can only be relayed verbatim.
 *
 * @example
 * import { signOrder } from 'order-relay/client'
 * const request = await signOrder({ account, order, broker, chainId: 421614, client })
 */
export async function signOrder(parameters: SignOrderParameters): Promise<RelayRequest> {
  const { account, order, broker, chainId } = parameters
  if (order.consumer.toLowerCase() !== account.address.toLowerCase()) {
    throw new Error('signOrder: order.consumer must be the signing account')
  }
  let domain = parameters.domain
  if (!domain) {
    if (!parameters.client) throw new Error('signOrder: pass `domain`, or `client` to read the token domain')
    domain = await readTokenDomain(parameters.client, order.payToken as Address)
  }
  const orderHash = hashOrder(order)
  const validAfter = parameters.validAfter ?? 0n
  const validBefore = parameters.validBefore ?? BigInt(Math.floor(Date.now() / 1000) + 3600)
  const signature = await account.signTypedData(
    receiveAuthorizationTypedData({
      domain,
      from: order.consumer as Address,
      to: broker,
      value: BigInt(order.amount),
      validAfter,
      validBefore,
      nonce: orderHash,
    }),
  )
  const { v, yParity, r, s } = parseSignature(signature)
  return {
    order,
    signature: { v: v === undefined ? 27 + yParity : Number(v), r, s },
    validAfter: validAfter.toString(),
    validBefore: validBefore.toString(),
    chainId,
    orderHash,
  }
}
