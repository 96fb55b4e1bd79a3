import { type Abi, type AbiEvent, decodeEventLog, type Hex, toEventSelector, type TransactionReceipt } from 'viem'
import { adapterEventAbis, brokeredEvent, compileStaticEvent, formatEventArgs, type StaticEventDecoder } from '../../chain/index.ts'
import type { AdapterReceipt, RelaySuccess } from '../../wire/index.ts'
import { RelayError } from '../errors.ts'

/** What decoding reads of a receipt (a viem receipt has it all). */
export type SettlementReceipt = Pick<TransactionReceipt, 'transactionHash'> & { logs: ReadonlyArray<{ address: Hex; topics: readonly Hex[]; data: Hex }> }

/**
 * An event's decoder: the word-slicing one when its arguments are all static (every
 * event of the Broker and the adapters), which gives viem's fields in viem's order at a
 * fraction of the cost; viem's `decodeEventLog` for anything it does not take.
 */
type EventDecoder = { kind?: string; name: string; decode(topics: readonly Hex[], data: Hex): Record<string, string> | undefined }
function decoderFor(event: AbiEvent, kind?: string): { selector: Hex; decoder: EventDecoder } {
  const compiled = compileStaticEvent(event)
  const viemDecode = (topics: readonly Hex[], data: Hex): Record<string, string> | undefined => {
    try {
      return formatEventArgs(decodeEventLog({ abi: [event], data, topics: topics as [Hex, ...Hex[]] }).args)
    } catch {
      return undefined
    }
  }
  const fast: StaticEventDecoder | undefined = compiled?.decoder
  return {
    selector: compiled?.selector ?? toEventSelector(event),
    decoder: { kind, name: event.name, decode: (topics, data) => fast?.decode(topics, data) ?? viemDecode(topics, data) },
  }
}

const brokered = decoderFor(brokeredEvent)

/** The adapters' events by topic0, each with the adapter kinds that declare it, in adapterEventAbis order. */
const adapterEvents = new Map<Hex, EventDecoder[]>()
for (const [kind, abi] of Object.entries(adapterEventAbis)) {
  for (const item of abi) {
    if (item.type !== 'event' || item.anonymous) continue
    const { selector, decoder } = decoderFor(item, kind)
    adapterEvents.set(selector, [...(adapterEvents.get(selector) ?? []), decoder])
  }
}

/** The events of adapters learned at run time (learnAdapterEvents), by adapter address, then topic0. */
const learnedEvents = new Map<string, Map<Hex, EventDecoder[]>>()

/**
 * Teaches decoding the events of an adapter the project does not ship (a contract
 * developer's own, from a devnet manifest): a receipt from `address` then reads
 * `{ adapter: name, event, fields }`.
 *
 * @example
 * learnAdapterEvents('0x5FbD…', 'TicketAdapter', ticketAdapterAbi)
 */
export function learnAdapterEvents(address: Hex, name: string, abi: Abi): void {
  const events = new Map<Hex, EventDecoder[]>()
  for (const item of abi) {
    if (item.type !== 'event' || item.anonymous) continue
    const { selector, decoder } = decoderFor(item, name)
    events.set(selector, [...(events.get(selector) ?? []), decoder])
  }
  learnedEvents.set(address.toLowerCase(), events)
}

/**
 * Step 7: read the `Brokered` event and the adapter's own event out of the receipt
 * and build the RelaySuccess.
 */
export function decodeSettlement(receipt: SettlementReceipt, broker: Hex, adapter: Hex, orderHash: Hex): RelaySuccess {
  let found: RelaySuccess['brokered'] | undefined
  let fee: string | undefined
  let adapterReceipt: AdapterReceipt = { adapter: 'unknown', event: 'unknown', fields: {} }

  // Only logs whose topic0 is a known event are decoded.
  const brokerAddress = broker.toLowerCase()
  const adapterAddress = adapter.toLowerCase()
  const events = learnedEvents.get(adapterAddress) ?? adapterEvents
  for (const log of receipt.logs) {
    const address = log.address.toLowerCase()
    const topic = log.topics[0]?.toLowerCase() as Hex | undefined
    if (address === brokerAddress) {
      if (topic !== brokered.selector) continue
      const fields = brokered.decoder.decode(log.topics, log.data)
      if (!fields || fields.orderHash?.toLowerCase() !== orderHash) continue
      found = { consumer: fields.consumer!, adapter: fields.adapter!, amount: fields.amount!, orderHash: fields.orderHash as Hex }
      fee = fields.fee
    } else if (address === adapterAddress && adapterReceipt.adapter === 'unknown') {
      for (const decoder of (topic && events.get(topic)) || []) {
        const fields = decoder.decode(log.topics, log.data)
        if (!fields) continue
        adapterReceipt = { adapter: decoder.kind!, event: decoder.name, fields }
        break
      }
    }
  }
  if (!found || fee === undefined) {
    throw new RelayError('UPSTREAM_RPC', `tx ${receipt.transactionHash} succeeded but its receipt has no Brokered event for this order; check the tx`)
  }
  return {
    ok: true,
    txHash: receipt.transactionHash,
    orderHash,
    brokered: found,
    receipt: adapterReceipt,
    feeCollected: fee,
  }
}
