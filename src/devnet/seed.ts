import { type Abi, type Account, type Address, type Chain, type Hex, keccak256, type PublicClient, stringToHex, type Transport, type WalletClient } from 'viem'
import {
  allocationAdapterAbi,
  attestedAdapterAbi,
  type ContractAddresses,
  expressLaneAdapterAbi,
  lienInboxAbi,
  mockEIP3009TokenAbi,
  mockExpressLaneAuctionAbi,
} from '../chain/index.ts'
import { devnetAccounts } from './accounts.ts'

/** A devnet vault: its slots and what one slot costs (`price` base units of the pay token, paid to `payee`). */
export type DevnetVault = { vaultId: bigint; slots: number; price: bigint; payee: Address }

export type SeedParameters = {
  publicClient: PublicClient
  /** Wallet client whose account is the deployer (adapter owner). */
  wallet: (role: 'deployer' | 'lender' | 'borrower') => WalletClient<Transport, Chain, Account>
  contracts: ContractAddresses
  vaults: DevnetVault[]
}

/** One USDC in base units (6 decimals). */
export const usdc = 1_000_000n

/**
 * What the devnet's pay token is worth to a relayer, in native units per whole token, as the
 * manifest's `tokens` writes it: 0.01 (an ETH at 100 tokens), so the devnet's usual order (10
 * tokens at 50 bps) pays for its gas many times over, even when the base fee climbs under
 * load, while dust (a fee of a few base units) does not (docs/economics.md).
 */
export const devnetTokenPrice = '0.01'

/**
 * What every devnet grant costs unless a vault says otherwise: 10 USDC to the devnet payee, in the
 * deployment's pay token. Every adapter's default payment (so every vault, the express lane and every
 * claim kind) is set to it.
 */
export const devnetPrice = 10n * usdc

/** The lien the devnet records at start, so `/activity` shows a `LienRecorded` at once. */
export const seededLienId: Hex = keccak256(stringToHex('order-relay devnet lien 1'))

/**
 * Seeds a fresh deployment: a funded consumer and lender, every adapter's default payment
 * (`devnetPrice` of the pay token to the devnet payee), vaults with slots and their own payment,
 * the lane operator in control of the current express-lane round, and one recorded lien.
 */
export async function seedDevnet(parameters: SeedParameters) {
  const { publicClient, contracts, wallet } = parameters
  const deployer = wallet('deployer')
  const send = async (client: WalletClient<Transport, Chain, Account>, request: Parameters<typeof client.writeContract>[0]) => {
    const hash = await client.writeContract(request)
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    if (receipt.status !== 'success') throw new Error(`seeding step ${String(request.functionName)} reverted in ${hash}`)
  }

  for (const role of ['consumer', 'lender', 'borrower'] as const) {
    await send(deployer, {
      address: contracts.payToken,
      abi: mockEIP3009TokenAbi,
      functionName: 'mint',
      args: [devnetAccounts[role].address, 1_000_000n * usdc],
    } as never)
  }
  const adapters: [Address, Abi][] = [
    [contracts.allocationAdapter, allocationAdapterAbi],
    [contracts.expressLaneAdapter, expressLaneAdapterAbi],
    [contracts.attestedAdapter, attestedAdapterAbi],
  ]
  for (const [address, abi] of adapters) {
    await send(deployer, {
      address,
      abi,
      functionName: 'setDefaultPayment',
      args: [contracts.payToken, devnetAccounts.payee.address, devnetPrice],
    } as never)
  }
  for (const vault of parameters.vaults) {
    await send(deployer, {
      address: contracts.allocationAdapter,
      abi: allocationAdapterAbi,
      functionName: 'configureVault',
      args: [vault.vaultId, BigInt(vault.slots)],
    } as never)
    await send(deployer, {
      address: contracts.allocationAdapter,
      abi: allocationAdapterAbi,
      functionName: 'setVaultPayment',
      args: [vault.vaultId, contracts.payToken, vault.payee, vault.price],
    } as never)
  }
  await send(deployer, { address: contracts.expressLaneAuction, abi: mockExpressLaneAuctionAbi, functionName: 'setCurrentRound', args: [1n] } as never)
  await send(deployer, {
    address: contracts.expressLaneAuction,
    abi: mockExpressLaneAuctionAbi,
    functionName: 'setResolvedRounds',
    args: [
      { expressLaneController: devnetAccounts.laneOperator.address, round: 1n },
      { expressLaneController: '0x0000000000000000000000000000000000000000', round: 0n },
    ],
  } as never)

  const block = await publicClient.getBlock()
  const expiresAt = block.timestamp + 365n * 24n * 3600n
  await send(wallet('lender'), {
    address: contracts.inbox,
    abi: lienInboxAbi,
    functionName: 'propose',
    args: [seededLienId, devnetAccounts.borrower.address, expiresAt],
  } as never)
  await send(wallet('borrower'), { address: contracts.inbox, abi: lienInboxAbi, functionName: 'confirm', args: [seededLienId] } as never)
}

/**
 * The RELAYER_TOKENS value that prices a manifest's pay tokens (its `tokens`), for a relayer
 * started without the manifest (RELAYER_BROKER and the rest given one by one).
 */
export function manifestTokensVariable(manifest: { tokens?: Record<string, string> | undefined }): { RELAYER_TOKENS: string } {
  return { RELAYER_TOKENS: Object.entries(manifest.tokens ?? {}).map(([token, price]) => `${token}=${price}`).join(',') }
}
