// decodeSettlement reads the Brokered event and the adapter's event by slicing words;
// its RelaySuccess is held here to what viem's decodeEventLog gives for every event of
// the Broker and the adapters, over random arguments.
import { expect, test } from 'bun:test'
import { type AbiEvent, type AbiParameter, decodeEventLog, encodeAbiParameters, encodeEventTopics, getAddress, type Hex, keccak256, toEventSelector, toHex } from 'viem'
import { adapterEventAbis, brokeredEvent, formatEventArgs } from '../../src/chain/index.ts'
import { decodeSettlement } from '../../src/relayer/steps/decodeSettlement.ts'

let seed = 1
const random = () => keccak256(toHex(seed++))
function value(parameter: AbiParameter): unknown {
  const word = random()
  if (parameter.type === 'address') return getAddress(`0x${word.slice(26)}`)
  if (parameter.type === 'bool') return BigInt(word) % 2n === 0n
  const uint = /^uint(\d+)$/.exec(parameter.type)
  if (uint) return BigInt(word) % (1n << BigInt(Math.min(Number(uint[1]), (seed % 4) * 64 + 8)))
  const bytes = /^bytes(\d+)$/.exec(parameter.type)
  if (bytes) return word.slice(0, 2 + 2 * Number(bytes[1])) as Hex
  throw new Error(`no random value for ${parameter.type}`)
}

/** A log of `event` with random arguments (the given ones win). */
function logOf(event: AbiEvent, address: Hex, given: Record<string, unknown> = {}) {
  const args = Object.fromEntries(event.inputs.map((input) => [input.name!, given[input.name!] ?? value(input)]))
  const topics = encodeEventTopics({ abi: [event], eventName: event.name, args } as never) as Hex[]
  const inData = event.inputs.filter((input) => !input.indexed)
  const data = encodeAbiParameters(inData, inData.map((input) => args[input.name!]))
  return { address, topics, data }
}

/** An event several adapters declare (an owner's setting) is named after the first of them, in adapterEventAbis order. */
const firstKindDeclaring = (event: AbiEvent) =>
  Object.entries(adapterEventAbis).find(([, abi]) => abi.some((item) => item.type === 'event' && toEventSelector(item) === toEventSelector(event)))![0]

const broker = getAddress(`0x${'b0'.repeat(20)}`)
const adapter = getAddress(`0x${'ad'.repeat(20)}`)

test('every adapter event, 50 times each: the same RelaySuccess as viem decodes', () => {
  for (const abi of Object.values(adapterEventAbis)) {
    for (const event of abi.filter((item): item is AbiEvent & typeof item => item.type === 'event')) {
      for (let i = 0; i < 50; i++) {
        const orderHash = random()
        const brokeredLog = logOf(brokeredEvent, broker, { orderHash })
        const adapterLog = logOf(event as AbiEvent, adapter)
        const receipt = { transactionHash: random(), logs: [logOf(brokeredEvent, broker), adapterLog, brokeredLog] }
        const viemBrokered = decodeEventLog({ abi: [brokeredEvent], data: brokeredLog.data, topics: brokeredLog.topics as [Hex, ...Hex[]] }).args
        const viemAdapter = decodeEventLog({ abi: [event as AbiEvent], data: adapterLog.data, topics: adapterLog.topics as [Hex, ...Hex[]] })
        const decoded = decodeSettlement(receipt, broker.toLowerCase() as Hex, adapter, orderHash)
        expect(decoded).toEqual({
          ok: true,
          txHash: receipt.transactionHash,
          orderHash,
          brokered: { consumer: viemBrokered.consumer, adapter: viemBrokered.adapter, amount: viemBrokered.amount.toString(), orderHash: viemBrokered.orderHash },
          receipt: { adapter: firstKindDeclaring(event as AbiEvent), event: viemAdapter.eventName, fields: formatEventArgs(viemAdapter.args) },
          feeCollected: viemBrokered.fee.toString(),
        })
        // Same keys in the same order as viem's.
        expect(JSON.stringify(decoded.receipt.fields)).toBe(JSON.stringify(formatEventArgs(viemAdapter.args)))
      }
    }
  }
})

test('a receipt without this order\'s Brokered event is UPSTREAM_RPC naming the tx', () => {
  const receipt = { transactionHash: random(), logs: [logOf(brokeredEvent, broker)] }
  expect(() => decodeSettlement(receipt, broker, adapter, random())).toThrow(`tx ${receipt.transactionHash} succeeded but its receipt has no Brokered event for this order; check the tx`)
})
