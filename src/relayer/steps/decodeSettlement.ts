import { type AbiEvent, type Hex, type TransactionReceipt, decodeEventLog, toEventSelector } from 'viem'
import { adapterEventAbis, brokeredEvent, formatEventArgs } from '../../chain/index.ts'
import type { AdapterReceipt, RelaySuccess } from '../../wire/index.ts'
import { RelayError } from '../errors.ts'

const brokeredTopic = toEventSelector(brokeredEvent)

/** The adapters' events by topic0, each with the adapter kinds that declare it, in adapterEventAbis order. */
const adapterEvents = new Map<Hex, Array<{ kind: string; event: AbiEvent }>>()
for (const [kind, abi] of Object.entries(adapterEventAbis)) {
  for (const item of abi) {
    if (item.type !== 'event' || item.anonymous) continue
    const topic = toEventSelector(item)
    adapterEvents.set(topic, [...(adapterEvents.get(topic) ?? []), { kind, event: item }])
  }
}

/**
 * Step 7: read the `Brokered` event and the adapter's own event out of the receipt
 * and build the RelaySuccess.
 */
export function decodeSettlement(receipt: TransactionReceipt, broker: Hex, adapter: Hex, orderHash: Hex): RelaySuccess {
  let brokered: RelaySuccess['brokered'] | undefined
  let fee: bigint | undefined
  let adapterReceipt: AdapterReceipt = { adapter: 'unknown', event: 'unknown', fields: {} }

  // Only logs whose topic0 is a known event are decoded (a failed decode throws, which is dear).
  const brokerAddress = broker.toLowerCase()
  const adapterAddress = adapter.toLowerCase()
  for (const log of receipt.logs) {
    const address = log.address.toLowerCase()
    const topic = log.topics[0]?.toLowerCase() as Hex | undefined
    if (address === brokerAddress) {
      if (topic !== brokeredTopic) continue
      try {
        const event = decodeEventLog({ abi: [brokeredEvent], data: log.data, topics: log.topics })
        if (event.args.orderHash.toLowerCase() !== orderHash) continue
        brokered = {
          consumer: event.args.consumer,
          adapter: event.args.adapter,
          amount: event.args.amount.toString(),
          orderHash: event.args.orderHash,
        }
        fee = event.args.fee
      } catch {}
    } else if (address === adapterAddress && adapterReceipt.adapter === 'unknown') {
      for (const { kind, event: item } of (topic && adapterEvents.get(topic)) || []) {
        try {
          const event = decodeEventLog({ abi: [item], data: log.data, topics: log.topics })
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
