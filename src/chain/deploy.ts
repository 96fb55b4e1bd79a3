import { type Abi, type Account, type Address, type Chain, getAddress, type Hex, type PublicClient, type Transport, type WalletClient } from 'viem'
import {
  allocationAdapterAbi,
  allocationAdapterBytecode,
  attestedAdapterAbi,
  attestedAdapterBytecode,
  brokerAbi,
  brokerBytecode,
  expressLaneAdapterAbi,
  expressLaneAdapterBytecode,
  lienEscrowAbi,
  lienEscrowBytecode,
  lienInboxAbi,
  lienInboxBytecode,
  lienPoolAbi,
  lienPoolBytecode,
  lienRegistryAbi,
  lienRegistryBytecode,
  mockEIP3009TokenAbi,
  mockEIP3009TokenBytecode,
  mockExpressLaneAuctionAbi,
  mockExpressLaneAuctionBytecode,
} from './generated/artifacts.ts'
import type { ContractAddresses } from './manifest.ts'

export type DeployedContracts = ContractAddresses
export type DeployProgress = { step: number; total: number; name: string; address?: Address; txHash: Hex }

export type DeployParameters = {
  publicClient: PublicClient
  walletClient: WalletClient<Transport, Chain, Account>
  /** Owner of the adapters (vault configuration, lane operator, attestor). */
  owner: Address
  attestor: Address
  laneOperator: Address
  /** An existing EIP-3009 token (e.g. USDC); a mock USDC is deployed when absent. */
  payToken?: Address | undefined
  /** An existing ExpressLaneAuction; a mock is deployed when absent. */
  expressLaneAuction?: Address | undefined
  onProgress?: (progress: DeployProgress) => void
}

/**
 * Deploys the Broker, the three adapters, the registry set (bound together) and,
 * unless given, a mock USDC and a mock express-lane auction. Returns the addresses
 * and the first deployment's block (the indexer's `deployedAt`).
 *
 * @example
 * const { contracts, deployedAt } = await deployContracts({ publicClient, walletClient, owner, attestor, laneOperator })
 */
export async function deployContracts(parameters: DeployParameters): Promise<{ contracts: DeployedContracts; deployedAt: bigint }> {
  const { publicClient, walletClient, onProgress } = parameters
  const total = 10 + (parameters.payToken ? 0 : 1) + (parameters.expressLaneAuction ? 0 : 1)
  let step = 0
  let deployedAt: bigint | undefined

  async function deploy(name: string, abi: Abi, bytecode: Hex, args: readonly unknown[] = []): Promise<Address> {
    const txHash = await walletClient.deployContract({ abi, bytecode, args } as Parameters<typeof walletClient.deployContract>[0])
    const receipt = await publicClient.waitForTransactionReceipt({ hash: txHash, pollingInterval: 50 })
    if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying ${name} reverted in tx ${txHash}`)
    deployedAt ??= receipt.blockNumber
    onProgress?.({ step: ++step, total, name, address: receipt.contractAddress, txHash })
    return getAddress(receipt.contractAddress)
  }

  async function call(name: string, address: Address, abi: Abi, functionName: string, args: readonly unknown[]) {
    const txHash = await walletClient.writeContract({ address, abi, functionName, args } as Parameters<typeof walletClient.writeContract>[0])
    const receipt = await publicClient.waitForTransactionReceipt({ hash: txHash, pollingInterval: 50 })
    if (receipt.status !== 'success') throw new Error(`${name} reverted in tx ${txHash}`)
    onProgress?.({ step: ++step, total, name, txHash })
  }

  const deployer = walletClient.account.address
  const broker = await deploy('Broker', brokerAbi, brokerBytecode)
  const payToken = parameters.payToken ?? (await deploy('MockEIP3009Token (USD Coin)', mockEIP3009TokenAbi, mockEIP3009TokenBytecode, ['USD Coin', '2']))
  const allocationAdapter = await deploy('AllocationAdapter', allocationAdapterAbi, allocationAdapterBytecode, [broker, parameters.owner])
  const expressLaneAuction =
    parameters.expressLaneAuction ?? (await deploy('MockExpressLaneAuction', mockExpressLaneAuctionAbi, mockExpressLaneAuctionBytecode))
  const expressLaneAdapter = await deploy('ExpressLaneAdapter', expressLaneAdapterAbi, expressLaneAdapterBytecode, [
    broker,
    expressLaneAuction,
    parameters.laneOperator,
    parameters.owner,
  ])
  const attestedAdapter = await deploy('AttestedAdapter', attestedAdapterAbi, attestedAdapterBytecode, [broker, parameters.attestor, parameters.owner])
  const registry = await deploy('LienRegistry', lienRegistryAbi, lienRegistryBytecode, [deployer])
  const inbox = await deploy('LienInbox', lienInboxAbi, lienInboxBytecode, [registry])
  const pool = await deploy('LienPool', lienPoolAbi, lienPoolBytecode, [registry, payToken])
  const escrow = await deploy('LienEscrow', lienEscrowAbi, lienEscrowBytecode, [registry, pool, payToken])
  await call('LienRegistry.bind', registry, lienRegistryAbi, 'bind', [inbox, escrow])
  await call('LienPool.setEscrow', pool, lienPoolAbi, 'setEscrow', [escrow])

  return {
    contracts: { broker, payToken, allocationAdapter, expressLaneAdapter, expressLaneAuction, attestedAdapter, registry, inbox, pool, escrow },
    deployedAt: deployedAt!,
  }
}
