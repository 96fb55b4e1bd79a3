import { type Abi, type Address, type Hex, type LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { attestationTypedData, decodeRevert, encodeAttestedParams, encodeBrokerCall, errorAbis, extractRevertData, isRevertError } from '../../../src/chain/index.ts'
import type { Devnet, DevnetRole } from '../../../src/devnet/index.ts'
import { devnetAccounts } from '../../../src/devnet/index.ts'
import type { RelayRequest } from '../../../src/wire/index.ts'

/** Deploys a contract from `role` (deployer by default) and returns its address. */
export async function deploy(devnet: Devnet, abi: Abi, bytecode: Hex, args: readonly unknown[] = [], role: DevnetRole = 'deployer'): Promise<Address> {
  const hash = await devnet.wallet(role).deployContract({ abi, bytecode, args } as Parameters<ReturnType<Devnet['wallet']>['deployContract']>[0])
  const receipt = await devnet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying reverted in ${hash}`)
  return receipt.contractAddress
}

/** Sends a contract call from `role` and waits for it to succeed. */
export async function write(devnet: Devnet, role: DevnetRole, call: { address: Address; abi: Abi; functionName: string; args: readonly unknown[] }) {
  const hash = await devnet.wallet(role).writeContract(call as Parameters<ReturnType<Devnet['wallet']>['writeContract']>[0])
  const receipt = await devnet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })
  if (receipt.status !== 'success') throw new Error(`${call.functionName} reverted in ${hash}`)
  return receipt
}

/**
 * What the chain says when `from` calls `to` with `data` directly (no relayer): the
 * decoded revert text, or `ok`.
 */
export async function chainSays(devnet: Devnet, call: { from: Address; to: Address; data: Hex }): Promise<string> {
  try {
    await devnet.publicClient.call({ account: call.from, to: call.to, data: call.data })
    return 'ok'
  } catch (error) {
    if (!isRevertError(error)) throw error
    return decodeRevert(extractRevertData(error), errorAbis).text
  }
}

/** The Broker call a relayer would make for `request`, sent by `from` straight to the chain. */
export function directBrokerCall(devnet: Devnet, request: RelayRequest, from: Address = devnetAccounts.secondRelayer.address) {
  return {
    from,
    to: devnet.manifest.contracts.broker,
    data: encodeBrokerCall(request),
  }
}

export const attestorAccount: LocalAccount = privateKeyToAccount(devnetAccounts.attestor.privateKey)

/**
 * `params` of an attested order: `abi.encode(claim, notAfter, signature)`, the
 * signature an EIP-712 `Attestation(address consumer,bytes32 claim,uint64 notAfter)`
 * for the devnet's AttestedAdapter by `signer` (the attestor unless given).
 */
export async function attestationParams(
  devnet: Devnet,
  attestation: { consumer: Address; claim: Hex; notAfter: bigint; signer?: LocalAccount },
): Promise<Hex> {
  const { signer = attestorAccount, ...message } = attestation
  const signature = await signer.signTypedData(
    attestationTypedData({ chainId: devnet.chainId, attestedAdapter: devnet.manifest.contracts.attestedAdapter, ...message }),
  )
  return encodeAttestedParams({ claim: message.claim, notAfter: message.notAfter, signature })
}

/** The latest block's timestamp. */
export async function chainTime(devnet: Devnet): Promise<bigint> {
  return (await devnet.publicClient.getBlock({ blockTag: 'latest' })).timestamp
}
