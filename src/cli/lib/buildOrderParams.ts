import { type Address, encodeAbiParameters, type Hex, keccak256, type PublicClient, slice, stringToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { allocationAdapterAbi, attestationTypedData, attestedAdapterAbi, encodeAttestedParams, expressLaneAdapterAbi, type Manifest } from '../../chain/index.ts'
import { CommandError } from '../command.ts'

export type AdapterKind = 'allocation' | 'express-lane' | 'attested'

/**
 * The adapter address and `params` for a demo order: a vault id for the allocation
 * adapter, nothing for the express lane, an attestation signed with the manifest's
 * attestor key (a devnet's public key) for the attested adapter.
 */
export async function buildOrderParams(
  kind: AdapterKind,
  manifest: Manifest,
  options: { consumer: Address; vaultId: bigint; nowSeconds: bigint },
): Promise<{ adapter: Address; params: Hex }> {
  const { contracts } = manifest
  if (kind === 'allocation') {
    return { adapter: contracts.allocationAdapter, params: encodeAbiParameters([{ type: 'uint256' }], [options.vaultId]) }
  }
  if (kind === 'express-lane') return { adapter: contracts.expressLaneAdapter, params: '0x' }
  const attestor = manifest.accounts?.attestor
  if (!attestor) throw new CommandError('--adapter attested needs the attestor key in the manifest (a devnet manifest has it)')
  // A fresh claim per order: an attestation redeems once.
  const claim = keccak256(stringToHex(`order-relay demo claim ${Date.now()} ${Math.random()}`))
  const notAfter = options.nowSeconds + 3600n
  const signature = await privateKeyToAccount(attestor.privateKey).signTypedData(
    attestationTypedData({ chainId: manifest.chainId, attestedAdapter: contracts.attestedAdapter, consumer: options.consumer, claim, notAfter }),
  )
  return { adapter: contracts.attestedAdapter, params: encodeAttestedParams({ claim, notAfter, signature }) }
}

/** What an order must pay for a grant: exactly `price` base units of `token`, to `payee`. */
export type Payment = { token: Address; payee: Address; price: bigint }

/**
 * The payment the adapter will accept for this order: for a vault the manifest lists, its
 * `price` and `payee` in the manifest's `payToken`; otherwise what the adapter says on chain
 * (`vaultPayment(vaultId)`, `defaultPayment()` for the express lane, `claimPayment(kind)` for an
 * attested claim, whose kind is the claim's first four bytes).
 */
export async function orderPayment(
  kind: AdapterKind,
  manifest: Manifest,
  client: PublicClient,
  options: { vaultId: bigint; params: Hex },
): Promise<Payment> {
  const { contracts } = manifest
  try {
    if (kind === 'allocation') {
      const listed = manifest.vaults?.find((vault) => BigInt(vault.vaultId) === options.vaultId)
      if (listed?.price !== undefined && listed.payee !== undefined) return { token: contracts.payToken, payee: listed.payee, price: BigInt(listed.price) }
      return await client.readContract({ address: contracts.allocationAdapter, abi: allocationAdapterAbi, functionName: 'vaultPayment', args: [options.vaultId] })
    }
    if (kind === 'express-lane') {
      const [token, payee, price] = await client.readContract({ address: contracts.expressLaneAdapter, abi: expressLaneAdapterAbi, functionName: 'defaultPayment' })
      return { token, payee, price }
    }
    const claimKind = slice(options.params, 0, 4)
    return await client.readContract({ address: contracts.attestedAdapter, abi: attestedAdapterAbi, functionName: 'claimPayment', args: [claimKind] })
  } catch {
    throw new CommandError(`cannot read the ${kind} adapter's price from the chain: check the RPC is up and the manifest's contracts are deployed there, or pass --amount and --payee`)
  }
}
