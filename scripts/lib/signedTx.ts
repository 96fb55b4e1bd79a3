import { type Address, type Hex, serializeTransaction } from 'viem'

// A made-up signature of a real one's size: the journal reads a tx's fields from its
// bytes and never checks who signed it, so its tests and benchmarks need well-formed
// txs, not keys (and no 0.2-0.4 ms per signature).
const signature = { yParity: 1, r: `0x${'11'.repeat(32)}`, s: `0x${'22'.repeat(32)}` } as const

/** A signed EIP-1559 tx's bytes as hex, as the journal keeps them. */
export function signedTx(fields: { nonce: number; to: Address; data?: Hex; gas?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint; chainId?: number }): Hex {
  const { nonce, to, data = '0x', gas = 200_000n, maxFeePerGas = 3_000_000_000n, maxPriorityFeePerGas = 1_000_000_000n, chainId = 31337 } = fields
  return serializeTransaction({ type: 'eip1559', chainId, nonce, to, data, gas, maxFeePerGas, maxPriorityFeePerGas }, signature)
}
