import { type Address, encodeFunctionData, type Hex } from 'viem'
import { mockEIP3009TokenAbi } from '../../../src/chain/generated/artifacts.ts'
import type { Devnet } from '../../../src/devnet/index.ts'
import { consumerAccount } from '../../helpers/orders.ts'

/** The consumer's signed `cancelAuthorization` call for `orderHash`: the token and the call's data. */
export async function cancellationCall(devnet: Devnet, orderHash: Hex): Promise<{ token: Address; data: Hex }> {
  const token = devnet.manifest.contracts.payToken as Address
  const [, name, version, chainId, verifyingContract] = await devnet.publicClient.readContract({ address: token, abi: mockEIP3009TokenAbi, functionName: 'eip712Domain' })
  const signature = await consumerAccount.signTypedData({
    domain: { name, version, chainId, verifyingContract },
    types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
    primaryType: 'CancelAuthorization',
    message: { authorizer: consumerAccount.address, nonce: orderHash },
  })
  const r = signature.slice(0, 66) as Hex
  const s = `0x${signature.slice(66, 130)}` as Hex
  const v = Number.parseInt(signature.slice(130, 132), 16)
  return { token, data: encodeFunctionData({ abi: mockEIP3009TokenAbi, functionName: 'cancelAuthorization', args: [consumerAccount.address, orderHash, v, r, s] }) }
}

/** The consumer cancels its authorization for `orderHash`, with a tip that puts it first in the block. */
export async function cancelAuthorization(devnet: Devnet, orderHash: Hex): Promise<Hex> {
  const { token, data } = await cancellationCall(devnet, orderHash)
  const gwei = 10n ** 9n
  return devnet.wallet('consumer').sendTransaction({
    to: token,
    data,
    // A fixed limit: an estimate would run after the relayer's pooled tx and revert.
    gas: 150_000n,
    maxPriorityFeePerGas: 500n * gwei,
    maxFeePerGas: 1_000n * gwei,
  })
}

/** The consumer's cancellation of `orderHash` signed as a raw tx (for `anvil_reorg` to mine in place of the chain's blocks). */
export async function signedCancellation(devnet: Devnet, orderHash: Hex): Promise<Hex> {
  const { token, data } = await cancellationCall(devnet, orderHash)
  const nonce = await devnet.publicClient.getTransactionCount({ address: consumerAccount.address })
  const gwei = 10n ** 9n
  return consumerAccount.signTransaction({ type: 'eip1559', chainId: devnet.chainId, nonce, to: token, data, gas: 150_000n, maxFeePerGas: 1_000n * gwei, maxPriorityFeePerGas: 2n * gwei })
}
