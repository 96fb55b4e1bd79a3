import type { Address, Hex } from 'viem'

// What the simulated node keeps of its chain: txs, receipts, blocks.

/** A signed tx as the node keeps it. */
export type NodeTx = { hash: Hex; raw: Hex; from: Address; nonce: number; to: Address; data: Hex; gas: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint; order?: Hex | undefined }

/** What mining a tx did: its status, gas, price and logs. */
export type NodeReceipt = { hash: Hex; status: 'success' | 'reverted'; gasUsed: bigint; effectiveGasPrice: bigint; logs: Array<{ address: Address; topics: Hex[]; data: Hex; logIndex: number }> }

/** `nonceAfter`: each key's nonce after the block; `indexedAt`: from when (virtual ms) its txs are found by hash, with their receipts and logs. */
export type SimBlock = { number: number; hash: Hex; parentHash: Hex; timestamp: number; baseFee: bigint; txs: NodeTx[]; receipts: NodeReceipt[]; nonceAfter: ReadonlyMap<Address, number>; indexedAt: number }
