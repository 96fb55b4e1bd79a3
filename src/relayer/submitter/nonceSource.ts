import { createNonceManager, type NonceManager, type NonceManagerSource } from 'viem'
import { getTransactionCount } from 'viem/actions'

/**
 * viem's nonce manager over a source that asks the chain only when it knows nothing
 * (at start, and after `reset` following a failed broadcast); otherwise it hands out
 * the next nonce locally, so an order costs no `eth_getTransactionCount`.
 */
export function createLocalNonceManager(): NonceManager {
  const lastUsed = new Map<string, number>()
  const key = ({ address, chainId }: { address: string; chainId: number }) => `${address.toLowerCase()}.${chainId}`
  const source: NonceManagerSource = {
    async get(parameters) {
      const known = lastUsed.get(key(parameters))
      if (known !== undefined) return known + 1
      return getTransactionCount(parameters.client, { address: parameters.address, blockTag: 'pending' })
    },
    set(parameters, nonce) {
      lastUsed.set(key(parameters), nonce)
    },
  }
  const manager = createNonceManager({ source })
  return {
    ...manager,
    reset(parameters) {
      lastUsed.delete(key(parameters))
      manager.reset(parameters)
    },
  }
}
