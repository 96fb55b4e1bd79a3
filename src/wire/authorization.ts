import type { Address, Hex, TypedDataDomain } from 'viem'

/** EIP-712 types of EIP-3009's `receiveWithAuthorization`. */
export const receiveWithAuthorizationTypes = {
  ReceiveWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

export type ReceiveAuthorizationParameters = {
  /** The payment token's EIP-712 domain (name, version, chainId, verifyingContract). */
  domain: TypedDataDomain
  /** `order.consumer`. */
  from: Address
  /** The Broker: only it may redeem a receive-authorization. */
  to: Address
  /** `order.amount`. */
  value: bigint
  validAfter: bigint
  validBefore: bigint
  /** The orderHash. */
  nonce: Hex
}

/**
 * The EIP-712 typed data a consumer signs for an order: a `ReceiveWithAuthorization`
 * to the Broker whose nonce is the orderHash, so any change to the order breaks it.
 *
 * @example
 * const signature = await account.signTypedData(receiveAuthorizationTypedData({ domain, from, to: broker, value, validAfter, validBefore, nonce: hashOrder(order) }))
 */
export function receiveAuthorizationTypedData(parameters: ReceiveAuthorizationParameters) {
  const { domain, ...message } = parameters
  return {
    domain,
    types: receiveWithAuthorizationTypes,
    primaryType: 'ReceiveWithAuthorization' as const,
    message,
  }
}
