import { type Address, type PublicClient, parseAbi, type TypedDataDomain } from 'viem'

const domainAbi = parseAbi([
  'function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)',
  'function name() view returns (string)',
  'function version() view returns (string)',
])

/**
 * The payment token's EIP-712 domain: through EIP-5267 `eip712Domain()`, or from
 * `name()` and `version()` where the token lacks it (as real USDC does).
 *
 * @example
 * import { readTokenDomain } from 'order-relay/client'
 * const domain = await readTokenDomain(publicClient, usdcAddress) // { name: 'USD Coin', version: '2', chainId: 421614, verifyingContract: '0x…' }
 */
export async function readTokenDomain(client: PublicClient, token: Address): Promise<TypedDataDomain> {
  try {
    const [, name, version, chainId, verifyingContract] = await client.readContract({ address: token, abi: domainAbi, functionName: 'eip712Domain' })
    return { name, version, chainId: Number(chainId), verifyingContract }
  } catch {
    const [name, version, chainId] = await Promise.all([
      client.readContract({ address: token, abi: domainAbi, functionName: 'name' }),
      client.readContract({ address: token, abi: domainAbi, functionName: 'version' }),
      client.getChainId(),
    ])
    return { name, version, chainId, verifyingContract: token }
  }
}
