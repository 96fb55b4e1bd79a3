// Gas accounting from receipts: only the relayer's own transactions, each once, by
// status. Reverted transactions from the key are rare on purpose (money safety),
// so the reverted branch is fed receipts in the node's JSON-RPC shape.
import { expect, test } from 'bun:test'
import { Registry } from 'prom-client'
import { createReceiptGas } from '../../src/metrics/receiptGas.ts'

const own = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const receipt = (hash: string, from: string, status: '0x1' | '0x0', gasUsed: number, price: number) => ({
  transactionHash: hash,
  from,
  status,
  gasUsed: `0x${gasUsed.toString(16)}`,
  effectiveGasPrice: `0x${price.toString(16)}`,
})

test('own receipts counted once each by status, from single and block receipts; others ignored', async () => {
  const registry = new Registry()
  const observer = createReceiptGas(registry, '0x70997970C51812dc3A010C7d01b50e0d17dc79C8')
  observer.result!('eth_getTransactionReceipt', [], receipt('0xa1', own, '0x1', 100_000, 2))
  observer.result!('eth_getTransactionReceipt', [], receipt('0xa1', own, '0x1', 100_000, 2)) // polled again
  observer.result!('eth_getBlockReceipts', [], [receipt('0xa2', own, '0x0', 30_000, 3), receipt('0xb1', '0x0000000000000000000000000000000000000001', '0x0', 5, 5)])
  observer.result!('eth_getTransactionReceipt', [], null)
  const text = await registry.metrics()
  expect(text).toContain('order_relay_relayer_transactions_total{status="success"} 1\norder_relay_relayer_transactions_total{status="reverted"} 1')
  expect(text).toContain('order_relay_relayer_gas_used_total{status="success"} 100000\norder_relay_relayer_gas_used_total{status="reverted"} 30000')
  expect(text).toContain('order_relay_relayer_gas_spent_wei_total{status="success"} 200000\norder_relay_relayer_gas_spent_wei_total{status="reverted"} 90000')
})
