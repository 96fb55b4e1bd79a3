import { numberToHex } from 'viem'
import type { NodeReceipt, NodeTx, SimBlock } from './chainRecords.ts'

// The simulated node's answers in the JSON-RPC shapes a real node gives them.

/** A block as `eth_getBlockByNumber` answers it, without the txs' bodies. */
export function blockJson(block: SimBlock) {
  return {
    number: numberToHex(block.number), hash: block.hash, parentHash: block.parentHash, timestamp: numberToHex(block.timestamp), baseFeePerGas: numberToHex(block.baseFee),
    gasLimit: numberToHex(30_000_000), gasUsed: numberToHex(block.receipts.reduce((sum, r) => sum + r.gasUsed, 0n)), transactions: block.txs.map((tx) => tx.hash),
    logsBloom: `0x${'00'.repeat(256)}`, miner: `0x${'00'.repeat(20)}`, difficulty: '0x0', extraData: '0x', nonce: '0x0000000000000000', size: '0x0',
    stateRoot: `0x${'00'.repeat(32)}`, receiptsRoot: `0x${'00'.repeat(32)}`, transactionsRoot: `0x${'00'.repeat(32)}`, sha3Uncles: `0x${'00'.repeat(32)}`, uncles: [], mixHash: `0x${'00'.repeat(32)}`,
  }
}

/** A tx as `eth_getTransactionByHash` answers it (`mined`: its block and index, else pending). */
export function txJson(tx: NodeTx, chainId: number, mined?: { block: SimBlock; index: number }) {
  return {
    hash: tx.hash, nonce: numberToHex(tx.nonce), from: tx.from, to: tx.to, input: tx.data, value: '0x0', gas: numberToHex(tx.gas), type: '0x2', chainId: numberToHex(chainId),
    maxFeePerGas: numberToHex(tx.maxFeePerGas), maxPriorityFeePerGas: numberToHex(tx.maxPriorityFeePerGas), accessList: [], v: '0x0', r: '0x1', s: '0x1', yParity: '0x0',
    blockHash: mined?.block.hash ?? null, blockNumber: mined ? numberToHex(mined.block.number) : null, transactionIndex: mined ? numberToHex(mined.index) : null,
  }
}

/** The receipt of the block's `index`-th tx as `eth_getTransactionReceipt` answers it. */
export function receiptJson(block: SimBlock, index: number) {
  const tx = block.txs[index]!
  const receipt = block.receipts[index]!
  return {
    transactionHash: tx.hash, transactionIndex: numberToHex(index), blockHash: block.hash, blockNumber: numberToHex(block.number), from: tx.from, to: tx.to,
    cumulativeGasUsed: numberToHex(receipt.gasUsed), gasUsed: numberToHex(receipt.gasUsed), effectiveGasPrice: numberToHex(receipt.effectiveGasPrice), contractAddress: null,
    logs: receipt.logs.map((log) => logJson(block, index, log)), logsBloom: `0x${'00'.repeat(256)}`, status: receipt.status === 'success' ? '0x1' : '0x0', type: '0x2',
  }
}

/** A log of the block's `index`-th tx as `eth_getLogs` and receipts answer it. */
export function logJson(block: SimBlock, index: number, log: NodeReceipt['logs'][number]) {
  return { ...log, logIndex: numberToHex(log.logIndex), blockHash: block.hash, blockNumber: numberToHex(block.number), transactionHash: block.txs[index]!.hash, transactionIndex: numberToHex(index), removed: false }
}

