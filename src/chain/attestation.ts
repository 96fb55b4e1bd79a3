import { type Address, encodeAbiParameters, type Hex } from 'viem'

export type Attestation = { consumer: Address; claim: Hex; notAfter: bigint }

/**
 * The EIP-712 `Attestation(address consumer,bytes32 claim,uint64 notAfter)` an
 * AttestedAdapter accepts from its attestor (it cannot name the orderHash: the
 * signature travels inside the order's `params`).
 *
 * @example
 * const signature = await attestor.signTypedData(attestationTypedData({ chainId, attestedAdapter, consumer, claim, notAfter }))
 */
export function attestationTypedData(parameters: Attestation & { chainId: number; attestedAdapter: Address }) {
  const { chainId, attestedAdapter, ...message } = parameters
  return {
    domain: { name: 'AttestedAdapter', version: '1', chainId, verifyingContract: attestedAdapter },
    types: {
      Attestation: [
        { name: 'consumer', type: 'address' },
        { name: 'claim', type: 'bytes32' },
        { name: 'notAfter', type: 'uint64' },
      ],
    },
    primaryType: 'Attestation',
    message,
  } as const
}

/** An attested order's `params`: `abi.encode(bytes32 claim, uint64 notAfter, bytes signature)`. */
export function encodeAttestedParams(attestation: { claim: Hex; notAfter: bigint; signature: Hex }): Hex {
  return encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint64' }, { type: 'bytes' }], [attestation.claim, attestation.notAfter, attestation.signature])
}
