// The indexer's direct decoder for events with static arguments (every registry
// event) gives exactly what viem's generic decodeEventLog + formatEventArgs gives —
// same name, same fields, same key order — and falls back to it for anything unusual
// (its speed is measured by the backfill benchmark in scripts/bench, not in a test).
import { expect, test } from 'bun:test'
import { type Abi, type AbiEvent, type AbiParameter, type Address, decodeEventLog, encodeAbiParameters, encodeEventTopics, getAddress, type Hex, type Log, pad, toHex } from 'viem'
import { formatEventArgs, registryAbis } from '../../src/chain/index.ts'
import { createLogDecoder } from '../../src/indexer/sync/decode.ts'
import type { ActivityEvent } from '../../src/wire/index.ts'
import { createRandom } from '../helpers/random.ts'

const rng = createRandom(0x1dec0de)
const addresses = Array.from({ length: 4 }, () => getAddress(`0x${rng.hex(20)}`)) as [Address, Address, Address, Address]
const events = registryAbis.flatMap((abi, index) =>
  (abi as Abi).filter((item): item is AbiEvent => item.type === 'event').map((item) => ({ item, address: addresses[index]!, abi: abi as Abi })),
)

// Parties repeat in a registry (lenders, borrowers), as they do in the benchmark; plus some one-offs.
const parties = Array.from({ length: 64 }, () => getAddress(`0x${rng.hex(20)}`))

function randomValue(parameter: AbiParameter): unknown {
  const { type } = parameter
  if (type === 'address') return rng.chance(0.9) ? rng.pick(parties) : getAddress(`0x${rng.hex(20)}`)
  if (type === 'bool') return rng.chance(0.5)
  const uint = /^uint(\d+)$/.exec(type)
  if (uint) return BigInt(`0x${rng.hex(Number(uint[1]) / 8)}`) >> BigInt(rng.int(0, Number(uint[1]) - 1))
  const int = /^int(\d+)$/.exec(type)
  if (int) return BigInt.asIntN(Number(int[1]), BigInt(`0x${rng.hex(Number(int[1]) / 8)}`))
  const bytes = /^bytes(\d+)$/.exec(type)
  if (bytes) return `0x${rng.hex(Number(bytes[1]))}`
  throw new Error(`no generator for ${type}`)
}

function logOf(entry: (typeof events)[number], index: number): Log {
  const values = entry.item.inputs.map(randomValue)
  const args = Object.fromEntries(entry.item.inputs.map((input, i) => [input.name!, values[i]]))
  const topics = encodeEventTopics({ abi: [entry.item], eventName: entry.item.name, args } as never) as Hex[]
  const dataInputs = entry.item.inputs.filter((input) => !input.indexed)
  const data = encodeAbiParameters(dataInputs, dataInputs.map((input) => args[input.name!]) as never)
  return {
    address: entry.address.toLowerCase() as Address,
    topics: topics as [Hex, ...Hex[]],
    data,
    blockNumber: BigInt(100 + index),
    logIndex: index % 7,
    transactionHash: pad(toHex(index), { size: 32 }),
    transactionIndex: 0,
    blockHash: pad(toHex(index + 1), { size: 32 }),
    removed: false,
  }
}

/** What the indexer gave before the direct path: viem's decoder on the emitter's ABI, then on all four. */
function viaViem(log: Log): ActivityEvent {
  const own = events.find((entry) => entry.address.toLowerCase() === log.address.toLowerCase())!.abi
  const base = { address: getAddress(log.address), blockNumber: log.blockNumber!.toString(), logIndex: log.logIndex!, transactionHash: log.transactionHash! }
  for (const abi of [own, registryAbis.flat() as Abi]) {
    try {
      const decoded = decodeEventLog({ abi, data: log.data, topics: log.topics, strict: true })
      if (decoded.eventName !== undefined) return { name: decoded.eventName, ...base, fields: formatEventArgs(decoded.args) }
    } catch {}
  }
  return { name: 'UnknownEvent', ...base, fields: { topics: log.topics.join(','), data: log.data } }
}

const decode = createLogDecoder(addresses)

test('every registry event, random arguments: the same event, fields and key order as viem', () => {
  expect(events.length).toBeGreaterThanOrEqual(10)
  for (let round = 0; round < 40; round++) {
    for (const [index, entry] of events.entries()) {
      const log = logOf(entry, round * events.length + index)
      const ours = decode(log)
      expect(ours).toEqual(viaViem(log))
      expect(JSON.stringify(ours)).toBe(JSON.stringify(viaViem(log)))
    }
  }
})

test('unusual logs fall back to viem and still agree with it', () => {
  const word = (hex: string) => hex.padStart(64, '0')
  for (const [index, entry] of events.entries()) {
    const log = logOf(entry, index)
    const variants: Log[] = [
      { ...log, data: `${log.data}${word('1')}` as Hex }, // data longer than the arguments
      { ...log, data: log.data.slice(0, -64) as Hex }, // data shorter
      { ...log, topics: [...log.topics, pad('0x01', { size: 32 })] as [Hex, ...Hex[]] }, // an extra topic
      { ...log, topics: log.topics.slice(0, -1) as [Hex, ...Hex[]] }, // a missing topic
      { ...log, topics: log.topics.map((topic, i) => (i === 0 ? topic : (`0x${'f'.repeat(24)}${topic.slice(26)}` as Hex))) as [Hex, ...Hex[]] }, // dirty upper bytes
      { ...log, data: (`0x${'f'.repeat(log.data.length - 2)}`) as Hex }, // every data word all ones (too big for uint64, not a bool)
      { ...log, topics: [log.topics[0]!.toUpperCase().replace('0X', '0x') as Hex, ...log.topics.slice(1)] }, // upper-case hex
    ]
    for (const variant of variants) expect(JSON.stringify(decode(variant))).toBe(JSON.stringify(viaViem(variant)))
  }
})
