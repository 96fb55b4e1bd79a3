import { type Address, type Chain, createWalletClient, parseAbi, type PublicClient, type TestClient, type Transport } from 'viem'

/** The two functions of Circle's FiatToken (USDC) that name and configure a minter. */
const fiatTokenMinterAbi = parseAbi([
  'function masterMinter() view returns (address)',
  'function configureMinter(address minter, uint256 minterAllowedAmount) returns (bool)',
])

export type BecomeFiatTokenMinterParameters = {
  publicClient: PublicClient
  testClient: TestClient<'anvil'>
  chain: Chain
  transport: Transport
  /** The FiatToken (USDC) contract, e.g. Circle's USDC on a fork. */
  token: Address
  /** Who may mint from now on (the devnet deployer). */
  minter: Address
  allowance: bigint
}

/**
 * Makes `minter` a minter of a Circle FiatToken on anvil: reads the token's
 * `masterMinter()`, impersonates it (anvil_impersonateAccount, with some ether for
 * gas) and calls `configureMinter(minter, allowance)`. Only possible on a chain anvil
 * runs (a fork): nothing here works on a real node.
 *
 * @throws Error when the token has no `masterMinter()` (not a FiatToken) or the call reverts
 * @example
 * await becomeFiatTokenMinter({ publicClient, testClient, chain, transport, token: usdc, minter: deployer, allowance: 10n ** 18n })
 */
export async function becomeFiatTokenMinter(parameters: BecomeFiatTokenMinterParameters): Promise<void> {
  const { publicClient, testClient, token, minter, allowance } = parameters
  let masterMinter: Address
  try {
    masterMinter = await publicClient.readContract({ address: token, abi: fiatTokenMinterAbi, functionName: 'masterMinter' })
  } catch {
    throw new Error(`pay token ${token} has no masterMinter(): it is not a Circle FiatToken (USDC) on this chain; check the address and the chain`)
  }
  await testClient.impersonateAccount({ address: masterMinter })
  try {
    await testClient.setBalance({ address: masterMinter, value: 10n ** 20n })
    const master = createWalletClient({ chain: parameters.chain, transport: parameters.transport, account: masterMinter })
    const hash = await master.writeContract({ address: token, abi: fiatTokenMinterAbi, functionName: 'configureMinter', args: [minter, allowance] })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    if (receipt.status !== 'success') throw new Error(`configureMinter on ${token} reverted in tx ${hash} (is the token paused?)`)
  } finally {
    await testClient.stopImpersonatingAccount({ address: masterMinter })
  }
}
