// The local stand-in for a chain's Circle USDC: the project's MockFiatToken (FiatTokenV2's
// revert strings, name()/version() without EIP-5267, a master minter that configures
// minters) put at Circle's address on the anvil that plays the remote chain, set up as
// USDC's proxy sets it up, with a master minter and a pauser that are none of the devnet's
// accounts, so the fork reaches them only by impersonation, as on the real chain.
import { type Address, getAddress, keccak256, stringToHex } from 'viem'
import { mockFiatTokenAbi, mockFiatTokenBytecode } from '../../../src/chain/index.ts'
import type { Devnet } from '../../../src/devnet/index.ts'

/** An address nobody holds a key to, named after its role. */
const roleAddress = (role: string): Address => getAddress(`0x${keccak256(stringToHex(`circle ${role}`)).slice(26)}`)

export const standInRoles = { masterMinter: roleAddress('master minter'), pauser: roleAddress('pauser'), blacklister: roleAddress('blacklister'), owner: roleAddress('owner') }

/** Puts a FiatToken at `at` on `remote` (anvil_setCode of a deployed copy's code, then `initialize`). */
export async function plantFiatToken(remote: Devnet, at: Address): Promise<void> {
  const deployer = remote.wallet('deployer')
  const hash = await deployer.deployContract({ abi: mockFiatTokenAbi, bytecode: mockFiatTokenBytecode })
  const { contractAddress } = await remote.publicClient.waitForTransactionReceipt({ hash })
  const code = await remote.publicClient.getCode({ address: contractAddress! })
  await remote.testClient.setCode({ address: at, bytecode: code! })
  const init = await deployer.writeContract({
    address: at,
    abi: mockFiatTokenAbi,
    functionName: 'initialize',
    args: ['USDC', 'USDC', 'USD', 6, standInRoles.masterMinter, standInRoles.pauser, standInRoles.blacklister, standInRoles.owner],
  })
  const receipt = await remote.publicClient.waitForTransactionReceipt({ hash: init })
  if (receipt.status !== 'success') throw new Error(`initializing the stand-in USDC at ${at} reverted in ${init}`)
}
