import type { Address, PublicClient } from 'viem'

/**
 * The gas key as the node sees it: its balance and its mined/pending nonces, read
 * together and remembered, so the balance gauge, the status page and `/ready` share
 * one read (the edge's balance watch polls through `readBalance`).
 */
export function createKeyState(client: () => PublicClient, address: Address) {
  let balance: { wei: bigint; at: number } | undefined
  let nonces: { latest: number; pending: number } | undefined

  async function readBalance(): Promise<bigint> {
    const [wei, latest, pending] = await Promise.all([
      client().getBalance({ address }),
      client().getTransactionCount({ address, blockTag: 'latest' }),
      client().getTransactionCount({ address, blockTag: 'pending' }),
    ])
    balance = { wei, at: Date.now() }
    nonces = { latest, pending }
    return wei
  }

  return {
    readBalance,
    /** The balance no older than `maxAgeMs`, read now if needed. */
    async freshBalance(maxAgeMs: number): Promise<bigint> {
      if (balance && Date.now() - balance.at <= maxAgeMs) return balance.wei
      return readBalance()
    },
    balance: () => balance?.wei,
    nonces: () => nonces,
  }
}

export type KeyState = ReturnType<typeof createKeyState>
