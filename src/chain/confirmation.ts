import type { Address, Hex } from 'viem'

/** Every term a borrower's lien confirmation binds (LienInbox.confirmBySig). */
export type Confirmation = {
  lienId: Hex
  securedParty: Address
  borrower: Address
  expiresAt: bigint
  /** Unix seconds after which the signature no longer confirms anything. */
  deadline: bigint
  /** Any value the borrower has not used or cancelled (`nonceUsed(borrower, nonce)` is false). */
  nonce: bigint
}

/**
 * The EIP-712 `Confirmation` a borrower signs for `LienInbox.confirmBySig`: it names the
 * proposal's secured party and expiry, so it cannot confirm someone else's proposal of the
 * same lien id.
 *
 * @example
 * const signature = await borrower.signTypedData(confirmationTypedData({ chainId, inbox, lienId, securedParty, borrower, expiresAt, deadline, nonce }))
 */
export function confirmationTypedData(parameters: Confirmation & { chainId: number; inbox: Address }) {
  const { chainId, inbox, ...message } = parameters
  return {
    domain: { name: 'LienInbox', version: '1', chainId, verifyingContract: inbox },
    types: {
      Confirmation: [
        { name: 'lienId', type: 'bytes32' },
        { name: 'securedParty', type: 'address' },
        { name: 'borrower', type: 'address' },
        { name: 'expiresAt', type: 'uint64' },
        { name: 'deadline', type: 'uint256' },
        { name: 'nonce', type: 'uint256' },
      ],
    },
    primaryType: 'Confirmation',
    message,
  } as const
}
