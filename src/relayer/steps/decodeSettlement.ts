import { type Hex, type TransactionReceipt, decodeEventLog, isAddressEqual } from 'viem'
import { adapterEventAbis, brokerAbi, formatEventArgs } from '../../chain/index.ts'
import type { AdapterReceipt, RelaySuccess } from '../../wire/index.ts'
import { RelayError } from '../errors.ts'

/**
 * Step 7: read the `Brokered` event and the adapter's own event out of the receipt
 * and build the RelaySuccess.
 */
export function decodeSettlement(receipt: TransactionReceipt, broker: Hex, adapter: Hex, orderHash: Hex): RelaySuccess {
  let brokered: RelaySuccess['brokered'] | undefined
  let fee: bigint | undefined
  let adapterReceipt: AdapterReceipt = { adapter: 'unknown', event: 'unknown', fields: {} }

  for (const log of receipt.logs) {
    if (isAddressEqual(log.address, broker)) {
      try {
        const event = decodeEventLog({ abi: brokerAbi, data: log.data, topics: log.topics, eventName: 'Brokered' })
        if (event.args.orderHash.toLowerCase() !== orderHash) continue
        brokered = {
          consumer: event.args.consumer,
          adapter: event.args.adapter,
          amount: event.args.amount.toString(),
          orderHash: event.args.orderHash,
        }
        fee = event.args.fee
      } catch {}
    } else if (isAddressEqual(log.address, adapter) && adapterReceipt.adapter === 'unknown') {
      for (const [kind, abi] of Object.entries(adapterEventAbis)) {
        try {
          const event = decodeEventLog({ abi, data: log.data, topics: log.topics })
          adapterReceipt = { adapter: kind, event: event.eventName, fields: formatEventArgs(event.args) }
          break
        } catch {}
      }
    }
  }
  if (!brokered || fee === undefined) {
    throw new RelayError('UPSTREAM_RPC', `tx ${receipt.transactionHash} succeeded but its receipt has no Brokered event for this order; check the tx`)
  }
  return {
    ok: true,
    txHash: receipt.transactionHash,
    orderHash,
    brokered,
    receipt: adapterReceipt,
    feeCollected: fee.toString(),
  }
}
