import { type Address, encodeAbiParameters, type Hex, keccak256, stringToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { attestationTypedData, encodeAttestedParams, type Manifest } from '../../chain/index.ts'
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
