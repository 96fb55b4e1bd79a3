import { type Abi, type Account, type Address, type Chain, encodeDeployData, getAddress, type Hex, type PublicClient, type Transport, type WalletClient } from 'viem'
import { type ContractAddresses, decodeRevert, extractRevertData, isRevertError, type ManifestAdapter, ManifestSchema } from '../chain/index.ts'
import { errorLine } from '../shared/index.ts'
import { devnetAccounts } from './accounts.ts'
import { type AdapterArtifact, AdapterArtifactError, relayerAbi, readAdapterArtifact, toAdapterArtifact } from './adapterArtifact.ts'
import { constructorArgs } from './constructorArgs.ts'

/** A contract developer's adapter to deploy against the devnet's Broker. */
export type AdapterDeployment = {
  /** A forge (`out/X.sol/X.json`) or hardhat artifact file, or the artifact itself: `{ abi, bytecode }`. */
  artifact: string | { abi: Abi | readonly unknown[]; bytecode: Hex | { object: Hex } }
  /**
   * Constructor arguments, in order. An `address` may be a name the devnet knows:
   * `broker`, `payToken`, any other manifest contract, or an account (`deployer`,
   * `consumer`, `payee`…). Integers may be bigints, numbers or decimal strings.
   */
  args?: readonly unknown[]
  /** The name the relayer reports (`receipt.adapter`); default the contract's. */
  name?: string
}

export type DeployAdapterParameters = {
  publicClient: PublicClient
  walletClient: WalletClient<Transport, Chain, Account>
  adapter: AdapterDeployment
  /** What an `address` argument may name. */
  names: Record<string, Address>
}

/**
 * The names an adapter's `address` argument may use, with the devnet's addresses:
 * the manifest's contracts and anvil's development accounts by role.
 */
export function adapterAddressNames(contracts: ContractAddresses): Record<string, Address> {
  return { ...contracts, ...Object.fromEntries(Object.entries(devnetAccounts).map(([role, account]) => [role, account.address])) }
}

/**
 * Checks an adapter before anything is deployed: its artifact reads and its arguments
 * fit its constructor (names checked against those `adapterAddressNames` knows). A
 * usage error found here costs no chain and no wait.
 *
 * @throws AdapterArtifactError saying what to fix
 * @example
 * checkAdapterDeployment({ artifact: 'out/TicketAdapter.sol/TicketAdapter.json', args: ['broker', '2'] })
 */
export function checkAdapterDeployment(adapter: AdapterDeployment): void {
  const artifact = loadArtifact(adapter)
  const placeholder = '0x0000000000000000000000000000000000000001' as Address
  const contracts = Object.fromEntries(Object.keys(ManifestSchema.entries.contracts.entries).map((name) => [name, placeholder])) as ContractAddresses
  constructorArgs(artifact.abi, adapter.args ?? [], adapterAddressNames(contracts), artifact.name)
}

function loadArtifact(adapter: AdapterDeployment): AdapterArtifact {
  return typeof adapter.artifact === 'string'
    ? readAdapterArtifact(adapter.artifact, adapter.name)
    : toAdapterArtifact(adapter.artifact, adapter.name ?? 'Adapter', `the artifact of ${adapter.name ?? 'an adapter'}`)
}

/**
 * Deploys one adapter (its constructor simulated first, so a revert is named by the
 * artifact's own errors) and returns its manifest entry: name, address and the errors
 * and events a relayer learns from.
 *
 * @throws AdapterArtifactError for an unusable artifact or arguments, Error naming the decoded revert
 * @example
 * const entry = await deployAdapter({ publicClient, walletClient, adapter: { artifact: 'out/TicketAdapter.sol/TicketAdapter.json', args: ['broker', 2] }, names: { broker } })
 */
export async function deployAdapter(parameters: DeployAdapterParameters): Promise<ManifestAdapter> {
  const { publicClient, walletClient, adapter, names } = parameters
  const artifact = loadArtifact(adapter)
  const args = constructorArgs(artifact.abi, adapter.args ?? [], names, artifact.name)
  let data: Hex
  try {
    data = encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args })
  } catch (error) {
    throw new AdapterArtifactError(`${artifact.name}: its constructor arguments do not encode (${errorLine(error)})`)
  }
  try {
    await publicClient.call({ account: walletClient.account, data })
  } catch (error) {
    if (!isRevertError(error)) throw error
    throw new Error(`deploying ${artifact.name} would revert: ${decodeRevert(extractRevertData(error), [artifact.abi]).text}; check its constructor arguments`)
  }
  const hash = await walletClient.sendTransaction({ data })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying ${artifact.name} reverted in tx ${hash}`)
  return { name: artifact.name, address: getAddress(receipt.contractAddress), abi: relayerAbi(artifact.abi) }
}
