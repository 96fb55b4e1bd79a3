import type { Address, Hex } from 'viem'
import { bytesToHex } from '../../src/wire/hexBytes.ts'
import { serializeEip1559 } from '../../src/relayer/submitter/serializeEip1559.ts'

// A made-up signature of a real one's size: the journal reads a tx's fields from its
// bytes and never checks who signed it, so its tests and benchmarks need well-formed
// txs, not keys (and no 0.2-0.4 ms per signature).
const signature = { yParity: 1, r: new Uint8Array(32).fill(0x11), s: new Uint8Array(32).fill(0x22) }

/** A signed EIP-1559 tx's bytes as hex, as the journal keeps them. */
export function signedTx(fields: { nonce: number; to: Address; data?: Hex; gas?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint; chainId?: number }): Hex {
  const { nonce, to, data = '0x', gas = 200_000n, maxFeePerGas = 3_000_000_000n, maxPriorityFeePerGas = 1_000_000_000n, chainId = 31337 } = fields
  return bytesToHex(serializeEip1559({ type: 'eip1559', chainId, nonce, to, data, gas, maxFeePerGas, maxPriorityFeePerGas }, signature))
}
