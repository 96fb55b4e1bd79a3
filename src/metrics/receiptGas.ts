import { Counter, type Registry } from 'prom-client'
import type { RpcObserver } from './rpcTransport.ts'

type RpcReceipt = { transactionHash?: unknown; from?: unknown; status?: unknown; gasUsed?: unknown; effectiveGasPrice?: unknown }

const remembered = 10_000

/**
 * Gas the relayer's key spent, read from the receipts the relayer fetches anyway
 * (`eth_getTransactionReceipt`, `eth_getBlockReceipts`): each of its own
 * transactions counted once, by status (`success` or `reverted`). Summed in plain
 * numbers per receipt and handed to prom-client at scrape time: every settled order's
 * receipt passes here, and three labelled increments each cost more than the sums.
 */
export function createReceiptGas(registry: Registry, address: string): RpcObserver {
  const registers = [registry]
  const own = address.toLowerCase()
  const labelNames = ['status']
  // By status, in the order first seen: transactions, gas used, wei spent.
  const sums = new Map<'success' | 'reverted', { transactions: number; gasUsed: number; spent: number }>()
  const fromSums = (pick: (sum: { transactions: number; gasUsed: number; spent: number }) => number) =>
    function collect(this: Counter<'status'>) {
      this.reset()
      for (const [status, sum] of sums) this.inc({ status }, pick(sum))
    }
  new Counter({ name: 'order_relay_relayer_transactions_total', help: "Mined transactions from the gas key, by status.", labelNames, registers, collect: fromSums((sum) => sum.transactions) })
  new Counter({ name: 'order_relay_relayer_gas_used_total', help: 'Gas units used by the gas key’s mined transactions, by status.', labelNames, registers, collect: fromSums((sum) => sum.gasUsed) })
  new Counter({ name: 'order_relay_relayer_gas_spent_wei_total', help: 'Wei paid for gas (gasUsed × effectiveGasPrice) by the gas key, by status.', labelNames, registers, collect: fromSums((sum) => sum.spent) })
  const seen = new Set<string>()

  function count(receipt: RpcReceipt) {
    if (typeof receipt.from !== 'string' || receipt.from.toLowerCase() !== own) return
    if (typeof receipt.transactionHash !== 'string' || seen.has(receipt.transactionHash)) return
    seen.add(receipt.transactionHash)
    if (seen.size > remembered) seen.delete(seen.values().next().value!)
    const status = receipt.status === '0x1' ? 'success' : 'reverted'
    const used = typeof receipt.gasUsed === 'string' ? BigInt(receipt.gasUsed) : 0n
    const price = typeof receipt.effectiveGasPrice === 'string' ? BigInt(receipt.effectiveGasPrice) : 0n
    let sum = sums.get(status)
    if (!sum) sums.set(status, (sum = { transactions: 0, gasUsed: 0, spent: 0 }))
    sum.transactions++
    sum.gasUsed += Number(used)
    sum.spent += Number(used * price)
  }

  return {
    request() {},
    error() {},
    result(method, _params, result) {
      if (!result || typeof result !== 'object') return
      if (method === 'eth_getTransactionReceipt') count(result as RpcReceipt)
      else if (method === 'eth_getBlockReceipts' && Array.isArray(result)) for (const receipt of result) count(receipt as RpcReceipt)
    },
  }
}
